/**
 * The chart renderer's thread: Vega-Lite compiled to Vega, drawn headless to SVG (`renderer: 'none'`, no canvas),
 * and for mail that SVG rasterized to PNG by resvg (@resvg/resvg-js, a native module). A chart takes tens of
 * milliseconds of uninterrupted work; here it takes them off the server's event loop.
 * The loader refuses every URL, so whatever a specification said, drawing it fetches and reads nothing.
 *
 * Text in a PNG is drawn with the DejaVu Sans files the `dejavu-fonts-ttf` package ships, never the machine's fonts:
 * a container image or CI machine may have none, and the picture should not change with what a host installed. The
 * charts ask for `system-ui, sans-serif`; resvg knows no `system-ui`, and `sans-serif` is mapped to DejaVu Sans.
 */
import { createRequire } from 'node:module';
import { parentPort } from 'node:worker_threads';
import * as vega from 'vega';
import { compile } from 'vega-lite';

const loader = vega.loader();
const refuse = async () => {
  throw new Error('charts are drawn from inline data only');
};
Object.assign(loader, { load: refuse, sanitize: refuse, http: refuse, file: refuse });

export interface ChartRequest {
  id: number;
  spec: Record<string, unknown>;
  /** a PNG at this many device pixels per SVG pixel, instead of the SVG */
  png?: { scale: number };
}

export type ChartAnswer =
  | { id: number; svg: string }
  | { id: number; png: Uint8Array; width: number; height: number }
  | { id: number; error: string };

export const FONT_FAMILY = 'DejaVu Sans';

/**
 * The font files, found as a package from wherever this code runs: worker.ts in the checkout, or the installed
 * package's dist/chart-worker.js (the bundle leaves node_modules outside), both resolving the one in node_modules.
 */
function fontFiles(): string[] {
  const require = createRequire(import.meta.url);
  return ['DejaVuSans.ttf', 'DejaVuSans-Bold.ttf'].map((file) => require.resolve(`dejavu-fonts-ttf/ttf/${file}`));
}

type Resvg = typeof import('@resvg/resvg-js');
let rasterizer: Promise<{ resvg: Resvg; fonts: string[] }> | null = null;
/** Loaded on the first PNG: a platform without resvg's prebuilt binary still draws the console's SVG charts. */
const loadRasterizer = () => (rasterizer ??= import('@resvg/resvg-js').then((resvg) => ({ resvg, fonts: fontFiles() })));

async function draw(spec: Record<string, unknown>): Promise<string> {
  const view = new vega.View(vega.parse(compile(spec as never).spec), { renderer: 'none', loader });
  try {
    return await view.toSVG();
  } finally {
    view.finalize();
  }
}

async function answer(request: ChartRequest): Promise<ChartAnswer> {
  const svg = await draw(request.spec);
  if (!request.png) return { id: request.id, svg };
  const { resvg, fonts } = await loadRasterizer();
  const image = new resvg.Resvg(svg, {
    fitTo: { mode: 'zoom', value: request.png.scale },
    font: { fontFiles: fonts, loadSystemFonts: false, defaultFontFamily: FONT_FAMILY, sansSerifFamily: FONT_FAMILY },
  }).render();
  return { id: request.id, png: new Uint8Array(image.asPng()), width: image.width, height: image.height };
}

parentPort!.on('message', (request: ChartRequest) => {
  answer(request).then(
    (a) => parentPort!.postMessage(a),
    (error: unknown) => parentPort!.postMessage({ id: request.id, error: error instanceof Error ? error.message : String(error) }),
  );
});

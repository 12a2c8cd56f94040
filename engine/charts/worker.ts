/**
 * The chart renderer's thread: Vega-Lite compiled to Vega, drawn headless to SVG (`renderer: 'none'`, no canvas).
 * A chart takes tens of milliseconds of uninterrupted work; here it takes them off the server's event loop.
 * The loader refuses every URL, so whatever a specification said, drawing it fetches and reads nothing.
 */
import { parentPort } from 'node:worker_threads';
import * as vega from 'vega';
import { compile } from 'vega-lite';

const loader = vega.loader();
const refuse = async () => {
  throw new Error('charts are drawn from inline data only');
};
Object.assign(loader, { load: refuse, sanitize: refuse, http: refuse, file: refuse });

async function draw(spec: Record<string, unknown>): Promise<string> {
  const view = new vega.View(vega.parse(compile(spec as never).spec), { renderer: 'none', loader });
  try {
    return await view.toSVG();
  } finally {
    view.finalize();
  }
}

parentPort!.on('message', (message: { id: number; spec: Record<string, unknown> }) => {
  draw(message.spec).then(
    (svg) => parentPort!.postMessage({ id: message.id, svg }),
    (error: unknown) => parentPort!.postMessage({ id: message.id, error: error instanceof Error ? error.message : String(error) }),
  );
});

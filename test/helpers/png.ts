/**
 * Reads a PNG into pixels (node:zlib only), so a test can look at a drawn chart: 8-bit RGB or RGBA, not interlaced,
 * the five scanline filters of the PNG specification. Anything else is refused with a sentence saying what.
 */
import { inflateSync } from 'node:zlib';

export interface Picture {
  width: number;
  height: number;
  /** the pixel at (x, y) as [r, g, b] */
  rgb(x: number, y: number): [number, number, number];
}

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

export function decodePng(file: Buffer): Picture {
  if (!file.subarray(0, 8).equals(SIGNATURE)) throw new Error('not a PNG: the signature differs');
  let width = 0;
  let height = 0;
  let channels = 0;
  const data: Buffer[] = [];
  for (let at = 8; at < file.length;) {
    const length = file.readUInt32BE(at);
    const type = file.toString('latin1', at + 4, at + 8);
    const body = file.subarray(at + 8, at + 8 + length);
    if (type === 'IHDR') {
      width = body.readUInt32BE(0);
      height = body.readUInt32BE(4);
      const [depth, colour, , , interlace] = [body[8], body[9], body[10], body[11], body[12]];
      if (depth !== 8 || (colour !== 2 && colour !== 6) || interlace !== 0) throw new Error(`a PNG this reader does not read: depth ${depth}, colour type ${colour}, interlace ${interlace}`);
      channels = colour === 6 ? 4 : 3;
    } else if (type === 'IDAT') data.push(body);
    else if (type === 'IEND') break;
    at += 12 + length;
  }
  const raw = inflateSync(Buffer.concat(data));
  const stride = width * channels;
  const pixels = Buffer.alloc(stride * height);
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)]!;
    const line = raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1));
    const out = y * stride;
    for (let i = 0; i < stride; i++) {
      const left = i >= channels ? pixels[out + i - channels]! : 0;
      const up = y > 0 ? pixels[out - stride + i]! : 0;
      const corner = y > 0 && i >= channels ? pixels[out - stride + i - channels]! : 0;
      let predicted = 0;
      if (filter === 1) predicted = left;
      else if (filter === 2) predicted = up;
      else if (filter === 3) predicted = (left + up) >> 1;
      else if (filter === 4) {
        const p = left + up - corner;
        const [pa, pb, pc] = [Math.abs(p - left), Math.abs(p - up), Math.abs(p - corner)];
        predicted = pa <= pb && pa <= pc ? left : pb <= pc ? up : corner;
      } else if (filter !== 0) throw new Error(`scanline ${y} has an unknown filter ${filter}`);
      pixels[out + i] = (line[i]! + predicted) & 0xff;
    }
  }
  return {
    width,
    height,
    rgb(x, y) {
      const i = y * stride + x * channels;
      return [pixels[i]!, pixels[i + 1]!, pixels[i + 2]!];
    },
  };
}

/** Where a colour is drawn in each column: for each x, how many pixels of that column are within `tolerance` of `hex`. */
export function columnCounts(picture: Picture, hex: string, tolerance = 8): number[] {
  const want = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16));
  const counts: number[] = [];
  for (let x = 0; x < picture.width; x++) {
    let n = 0;
    for (let y = 0; y < picture.height; y++) if (picture.rgb(x, y).every((c, i) => Math.abs(c - want[i]!) <= tolerance)) n++;
    counts.push(n);
  }
  return counts;
}

/** The bars of one colour, left to right: each run of columns holding it, and the run's tallest column in pixels. */
export function barsOf(picture: Picture, hex: string): { from: number; to: number; height: number }[] {
  const counts = columnCounts(picture, hex);
  const bars: { from: number; to: number; height: number }[] = [];
  counts.forEach((n, x) => {
    if (!n) return;
    const last = bars.at(-1);
    if (last && last.to === x - 1) {
      last.to = x;
      last.height = Math.max(last.height, n);
    } else bars.push({ from: x, to: x, height: n });
  });
  return bars;
}

/** Pixels in the box [x0, x1) × [y0, y1) that are not white: drawn text, lines or bars. */
export function inkIn(picture: Picture, x0: number, y0: number, x1: number, y1: number): number {
  let n = 0;
  for (let y = y0; y < y1; y++) for (let x = x0; x < x1; x++) if (picture.rgb(x, y).some((c) => c < 200)) n++;
  return n;
}

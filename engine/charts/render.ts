/**
 * Charts drawn on the server as SVG (Vega-Lite with Vega, headless) for the console's pages, and as PNG (that SVG
 * rasterized by resvg) for the mail that carries them: one worker thread for the process, started on the first chart
 * and never holding the process open, so a page's charts never block the event loop. Answers are remembered by
 * specification (a page asked again, the same weekly summary for each of a team's people, costs a lookup).
 */
import { createHash } from 'node:crypto';
import { Worker } from 'node:worker_threads';
import { vegaLiteSpec, type BarChart } from './chart.ts';
import type { ChartAnswer, ChartRequest } from './worker.ts';

/** Drawings remembered (SVGs and PNGs, a few tens of kilobytes each), by the hash of their specification and form */
const REMEMBERED = 200;
const remembered = new Map<string, string | ChartPng>();

/** A chart as a PNG: its bytes, and its size in CSS pixels (the image's pixels divided by the scale it was drawn at). */
export interface ChartPng {
  png: Buffer;
  width: number;
  height: number;
}

let worker: Worker | null = null;
let next = 0;
const waiting = new Map<number, { resolve: (answer: ChartAnswer) => void; reject: (error: Error) => void }>();

function thread(): Worker {
  if (worker) return worker;
  // from the checkout this file is render.ts beside worker.ts; in the installed package it is inside dist/vigil.js,
  // beside dist/chart-worker.js (package.json's bundle script builds both)
  const started = new Worker(import.meta.url.endsWith('.ts') ? new URL('./worker.ts', import.meta.url) : new URL('./chart-worker.js', import.meta.url));
  started.on('message', (m: ChartAnswer) => {
    const w = waiting.get(m.id);
    waiting.delete(m.id);
    if (!waiting.size) started.unref();
    if ('error' in m) w?.reject(new Error(`the chart could not be drawn: ${m.error}`));
    else w?.resolve(m);
  });
  const fail = (error: Error) => {
    if (worker === started) worker = null;
    for (const w of waiting.values()) w.reject(error);
    waiting.clear();
  };
  started.on('error', fail);
  started.on('exit', () => fail(new Error('the chart renderer stopped')));
  return (worker = started);
}

/** The chart drawn by the worker, or remembered: one helper for both forms. */
async function drawn<T extends string | ChartPng>(chart: BarChart, png: ChartRequest['png'], read: (answer: ChartAnswer) => T): Promise<T> {
  const spec = vegaLiteSpec(chart);
  const key = createHash('sha256').update(JSON.stringify([spec, png ?? null])).digest('base64url');
  const hit = remembered.get(key);
  if (hit !== undefined) return hit as T;
  const id = ++next;
  const answer = await new Promise<ChartAnswer>((resolve, reject) => {
    waiting.set(id, { resolve, reject });
    // held while a chart is being drawn, let go when none is: an idle renderer never keeps the process alive
    const t = thread();
    t.ref();
    t.postMessage({ id, spec, ...(png ? { png } : {}) } satisfies ChartRequest);
  });
  const value = read(answer);
  if (remembered.size >= REMEMBERED) remembered.delete(remembered.keys().next().value!);
  remembered.set(key, value);
  return value;
}

/** The chart as an SVG document (a string to place inline). */
export const renderChart = (chart: BarChart): Promise<string> => drawn(chart, undefined, (a) => ('svg' in a ? a.svg : ''));

/**
 * The chart as a PNG for mail clients, which show no SVG: drawn at `scale` device pixels per CSS pixel (2: sharp
 * on high-density screens), text in the font the renderer ships (worker.ts).
 */
export const renderChartPng = (chart: BarChart, scale = 2): Promise<ChartPng> =>
  drawn(chart, { scale }, (a) => {
    if (!('png' in a)) throw new Error('the chart renderer answered no PNG');
    return { png: Buffer.from(a.png), width: a.width / scale, height: a.height / scale };
  });

/** Stops the renderer's thread (the benchmark's cold runs, a test's teardown); the next chart starts another. */
export async function stopChartRenderer(): Promise<void> {
  const w = worker;
  worker = null;
  remembered.clear();
  if (w) await w.terminate();
}

export type { BarChart } from './chart.ts';

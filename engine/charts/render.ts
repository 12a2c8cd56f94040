/**
 * Charts drawn on the server as SVG (Vega-Lite with Vega, headless), for the console's pages and the mail that
 * carries them: one worker thread for the process, started on the first chart and never holding the process open,
 * so a page's charts never block the event loop. Answers are remembered by specification (a page asked again, the
 * same weekly summary for each of a team's people, costs a lookup).
 */
import { createHash } from 'node:crypto';
import { Worker } from 'node:worker_threads';
import { vegaLiteSpec, type BarChart } from './chart.ts';

/** SVGs remembered, by the hash of their specification */
const REMEMBERED = 200;
const remembered = new Map<string, string>();

let worker: Worker | null = null;
let next = 0;
const waiting = new Map<number, { resolve: (svg: string) => void; reject: (error: Error) => void }>();

function thread(): Worker {
  if (worker) return worker;
  // from the checkout this file is render.ts beside worker.ts; in the installed package it is inside dist/vigil.js,
  // beside dist/chart-worker.js (package.json's bundle script builds both)
  const started = new Worker(import.meta.url.endsWith('.ts') ? new URL('./worker.ts', import.meta.url) : new URL('./chart-worker.js', import.meta.url));
  started.on('message', (m: { id: number; svg?: string; error?: string }) => {
    const w = waiting.get(m.id);
    waiting.delete(m.id);
    if (!waiting.size) started.unref();
    if (m.svg !== undefined) w?.resolve(m.svg);
    else w?.reject(new Error(`the chart could not be drawn: ${m.error}`));
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

/** The chart as an SVG document (a string to place inline). */
export async function renderChart(chart: BarChart): Promise<string> {
  const spec = vegaLiteSpec(chart);
  const key = createHash('sha256').update(JSON.stringify(spec)).digest('base64url');
  const hit = remembered.get(key);
  if (hit !== undefined) return hit;
  const id = ++next;
  const svg = await new Promise<string>((resolve, reject) => {
    waiting.set(id, { resolve, reject });
    // held while a chart is being drawn, let go when none is: an idle renderer never keeps the process alive
    const t = thread();
    t.ref();
    t.postMessage({ id, spec });
  });
  if (remembered.size >= REMEMBERED) remembered.delete(remembered.keys().next().value!);
  remembered.set(key, svg);
  return svg;
}

/** Stops the renderer's thread (the benchmark's cold runs, a test's teardown); the next chart starts another. */
export async function stopChartRenderer(): Promise<void> {
  const w = worker;
  worker = null;
  remembered.clear();
  if (w) await w.terminate();
}

export type { BarChart } from './chart.ts';

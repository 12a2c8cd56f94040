/** Heartbeats: the deadline sweep (its job and the chain seeded at start). The ping is the `heartbeat` webhook source's handler (ping.ts). */
import type { Module } from '../../engine/module.ts';
import { heartbeatSweeper, heartbeatSweepJob, SWEEP_SECONDS } from './sweep.ts';

export interface HeartbeatOptions {
  /** seconds between sweeps (wall time; whether a deadline passed is decided with the injected clock); 0 starts none. Default 5 */
  tickSeconds?: number;
}

export function heartbeatsModule(options: HeartbeatOptions = {}): Module {
  return { name: 'heartbeats', jobs: [heartbeatSweepJob], onStart: heartbeatSweeper(options.tickSeconds ?? SWEEP_SECONDS) };
}

/** Heartbeats: the deadline sweep (its job and the chain seeded at start) and the removals it resolves (a table and an audit listener). The ping is the `heartbeat` webhook source's handler (ping.ts). */
import type { Module } from '../../engine/module.ts';
import { HEARTBEAT_ENTITIES } from './entities.ts';
import { noteRemoval } from './removals.ts';
import { heartbeatSweeper, heartbeatSweepJob, SWEEP_SECONDS } from './sweep.ts';
import heartbeats from '../../resources/heartbeats.ts';

export interface HeartbeatOptions {
  /** seconds between sweeps (wall time; whether a deadline passed is decided with the injected clock); 0 starts none. Default 5 */
  tickSeconds?: number;
}

export function heartbeatsModule(options: HeartbeatOptions = {}): Module {
  return {
    name: 'heartbeats', families: [heartbeats],
    entities: HEARTBEAT_ENTITIES,
    jobs: [heartbeatSweepJob],
    auditListeners: [noteRemoval],
    onStart: heartbeatSweeper(options.tickSeconds ?? SWEEP_SECONDS),
  };
}

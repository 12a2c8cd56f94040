/** Heartbeats: the deadline sweep (its job and the chain seeded at start, at the checks' cadence) and the removals it resolves (a table and an audit listener). The ping is the `heartbeat` webhook source's handler (ping.ts). */
import type { Module } from '../../engine/module.ts';
import { HEARTBEAT_ENTITIES } from './entities.ts';
import { noteRemoval } from './removals.ts';
import { heartbeatSweeper, heartbeatSweepJob } from './sweep.ts';
import heartbeats from '../../resources/heartbeats.ts';

export const heartbeatsModule: Module = {
  name: 'heartbeats', families: [heartbeats],
  entities: HEARTBEAT_ENTITIES,
  jobs: [heartbeatSweepJob],
  auditListeners: [noteRemoval],
  onStart: heartbeatSweeper,
};

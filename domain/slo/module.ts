/** SLOs: their tables, agent tools and the deploy gate's route. */
import type { Module } from '../../engine/module.ts';
import { SLO_ENTITIES } from './entities.ts';
import { deployGateRoutes } from './routes.ts';
import { SLO_OPERATIONS } from './tools.ts';

export const sloModule: Module = { name: 'slo', entities: SLO_ENTITIES, operations: SLO_OPERATIONS, routes: [deployGateRoutes] };

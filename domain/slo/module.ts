/** SLOs: their tables, agent tools and the deploy gate's route. */
import type { Module } from '../../engine/module.ts';
import { SLO_ENTITIES } from './entities.ts';
import { deployGateRoutes } from './routes.ts';
import { SLO_OPERATIONS } from './tools.ts';
import slis from '../../resources/slis.ts';
import slos from '../../resources/slos.ts';
import syntheticChecks from '../../resources/synthetic_checks.ts';
import deployPolicies from '../../resources/deploy_policies.ts';

export const sloModule: Module = { name: 'slo', families: [slis, slos, syntheticChecks, deployPolicies], entities: SLO_ENTITIES, operations: SLO_OPERATIONS, routes: [deployGateRoutes] };

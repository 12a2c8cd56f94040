/**
 * The one list of the service's modules, in mount order: bin/serve.ts serves it and the tests' harness starts the
 * same list. Adding a part is one folder exporting a Module and one line here.
 */
import type { Module } from '../engine/module.ts';
import { domainOperations } from '../resources/index.ts';
import { exportModule } from '../export/module.ts';
import { webhooksModule } from '../webhooks/module.ts';
import type { WebhookOptions } from '../webhooks/index.ts';
import { statusPageModule } from '../web/status-page/module.ts';
import { consoleModule } from '../web/console/module.ts';
import { SIGN_IN_SLOWDOWN } from '../web/console/sign-in-throttle.ts';
import { countStore } from '../webhooks/rate-limit.ts';
import { alertsModule } from '../domain/alerts/module.ts';
import { timelineModule } from '../domain/timeline/module.ts';
import { boardModule } from '../domain/board/module.ts';
import { trackersModule } from '../domain/trackers/module.ts';
import { fixesModule } from '../domain/fixes/module.ts';
import { aiModule } from '../domain/ai/module.ts';
import { sloModule } from '../domain/slo/module.ts';
import { checksModule } from '../domain/checks/module.ts';
import { statusPageSubscribersModule } from '../domain/status-page/module.ts';
import type { CheckOptions } from '../domain/checks/options.ts';
import { heartbeatsModule } from '../domain/heartbeats/module.ts';
import { outboundModule } from '../outbound/module.ts';
import { chatModule } from '../outbound/chat/module.ts';
import { emailModule } from '../outbound/email/module.ts';
import type { NotifyOptions } from '../outbound/tick.ts';

/** What the modules take from the deployment's settings (bin/env.ts) or a test's. */
export interface ModuleSettings {
  webhooks?: WebhookOptions;
  checks?: CheckOptions;
  notify?: NotifyOptions;
}

export function modules(settings: ModuleSettings = {}): Module[] {
  return [
    // agent tools (and REST routes) of families that are not their CRUD: they live beside the descriptors
    { name: 'families', operations: domainOperations },
    exportModule,
    webhooksModule(settings.webhooks),
    statusPageModule,
    // failed sign-ins are counted in the store the API's and webhooks' limits use (memory, PostgreSQL or Redis)
    consoleModule({ signInCounts: countStore(settings.webhooks ?? {}, 'vigil_sign_in', SIGN_IN_SLOWDOWN.forgetSeconds) }),
    alertsModule,
    timelineModule,
    boardModule,
    trackersModule,
    fixesModule,
    aiModule,
    outboundModule(settings.notify),
    sloModule,
    checksModule(settings.checks),
    // heartbeat deadlines are swept at the checks' cadence (VIGIL_CHECK_TICK_SECONDS)
    heartbeatsModule({ tickSeconds: settings.checks?.tickSeconds }),
    statusPageSubscribersModule,
    chatModule,
    emailModule,
  ];
}

/** The service the export and plan/apply benchmarks time: Vigil with only the export module, on a scratch database. */
import { randomBytes } from 'node:crypto';
import { systemClock } from '../engine/clock.ts';
import { createLogger } from '../engine/logger.ts';
import { createRegistry } from '../engine/registry.ts';
import { serve } from '../engine/server.ts';
import { exportModule } from '../export/module.ts';
import { addressPolicy } from '../outbound/net/addresses.ts';
import { targetRefusal } from '../outbound/net/url-rules.ts';
import { families } from '../resources/index.ts';
import { WEBHOOK_SOURCES } from '../webhooks/sources/index.ts';
import type { Scratch } from './lib.ts';
import { MIGRATIONS } from '../migrations/index.ts';

export function exportService(scratch: Scratch, operatorToken: string) {
  return serve({
    registry: createRegistry(families),
    migrations: MIGRATIONS,
    config: { trustPrincipalId: 'bench-principal', webhookSources: WEBHOOK_SOURCES },
    targets: targetRefusal({ outbound: addressPolicy(), check: { internal: true } }),
    clock: systemClock,
    log: createLogger('silent'),
    databaseUrl: scratch.url,
    port: 0,
    operatorToken,
    secretKey: randomBytes(32).toString('base64'),
    bootstrap: false,
    modules: [exportModule],
  });
}

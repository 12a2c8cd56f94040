/** Every table the service has: the engine's, each family's, and the webhook side's. One list for the server, migrations and tests. */
import { allEntities } from '../engine/persistence/entities.ts';
import { families } from '../resources/index.ts';
import { WEBHOOK_ENTITIES } from '../webhooks/entities.ts';

export const appEntities = () => allEntities(families, WEBHOOK_ENTITIES);

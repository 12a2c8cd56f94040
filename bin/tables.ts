/** Every table the service has: the engine's, each family's, and each module's. One list for the server, migrations and tests. */
import { allEntities } from '../engine/persistence/entities.ts';
import { families } from '../resources/index.ts';
import { modules } from './modules.ts';

export const appEntities = () => allEntities(families, modules().flatMap((m) => m.entities ?? []));

/**
 * Heartbeats deleted since the last sweep (`heartbeat_removals`): a deleted heartbeat that was down would otherwise
 * leave its alert firing for ever, as nothing would ping it again. The delete writes a row here in its own
 * transaction (removals.ts, an audit listener); the sweep takes the rows and resolves their alerts.
 */
import { EntitySchema } from '@mikro-orm/core';

export const HeartbeatRemovalEntity = new EntitySchema<any>({
  name: 'HeartbeatRemoval',
  tableName: 'heartbeat_removals',
  properties: {
    organization_id: { type: 'string', columnType: 'uuid', primary: true },
    heartbeat_id: { type: 'string', columnType: 'text', primary: true },
    removed_at: { type: 'Date', columnType: 'timestamptz' },
  },
});

export const HEARTBEAT_ENTITIES = [HeartbeatRemovalEntity];

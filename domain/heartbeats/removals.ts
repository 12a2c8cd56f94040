/**
 * Resolving the alert of a deleted heartbeat: the delete notes the heartbeat in `heartbeat_removals` inside its own
 * transaction (an audit listener, so a rolled-back delete notes nothing), and the sweep takes the notes (one
 * instance each: `FOR UPDATE SKIP LOCKED`, deleted as taken) and sends a resolve for each. A heartbeat that was not
 * down has no open alert, and the pipeline ignores a resolve with nothing to resolve.
 */
import type { SqlExecutor as Sql } from '../../engine/persistence/sql.ts';
import type { AuditListener } from '../../engine/services.ts';
import heartbeats from '../../resources/heartbeats.ts';

export const noteRemoval: AuditListener = {
  concerns: (_services, entry) => entry.family === heartbeats.name && entry.action === 'delete',
  async record(_services, store, entry) {
    if (entry.family !== heartbeats.name || entry.action !== 'delete' || !entry.rowId) return;
    await store.execute(
      'insert into heartbeat_removals (organization_id, heartbeat_id, removed_at) values (?, ?, ?) on conflict do nothing',
      [entry.organizationId, entry.rowId, entry.at],
    );
  },
};

/** Takes up to `limit` noted removals. */
export async function takeRemovals(sql: Sql, limit: number): Promise<{ organization_id: string; heartbeat_id: string }[]> {
  const rows = await sql(
    `delete from heartbeat_removals r where (r.organization_id, r.heartbeat_id) in (
       select organization_id, heartbeat_id from heartbeat_removals order by removed_at limit ? for update skip locked)
     returning r.organization_id, r.heartbeat_id`,
    [limit],
  );
  return rows.map((r) => ({ organization_id: String(r.organization_id), heartbeat_id: String(r.heartbeat_id) }));
}

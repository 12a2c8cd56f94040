/**
 * Members made and kept by single sign-on (just in time): a person an identity provider vouches for becomes a user
 * (found by their verified email, made when new) and a member of the organization with the role their groups map
 * to, at every sign-in. A sign-in whose groups map to no role removes the membership (as the operator's removal
 * does: the user, their rows and the audit history stay) and ends the person's sessions there.
 *
 * Which role, which domains and whether the email is verified are decided before this is called (the console's
 * sign-in): this only writes what was decided, in one transaction.
 */
import { randomUUID } from 'node:crypto';
import type { Role } from '../plans.ts';
import { sqlExecutor } from '../persistence/sql.ts';
import type { Services } from '../services.ts';
import { isUuid } from '../validation.ts';

export type SsoMembership =
  | { kind: 'member'; userId: string; organizationId: string; role: Role; created: boolean }
  | { kind: 'removed'; organizationId: string }
  | { kind: 'no_organization' };

/** The enabled organization a setting names, by id or by its exact name (one only); null otherwise. */
export async function organizationNamed(services: Services, idOrName: string): Promise<string | null> {
  const sql = sqlExecutor(services.db);
  const rows = isUuid(idOrName)
    ? await sql('select id from organizations where id = ? and disabled = false', [idOrName.toLowerCase()])
    : await sql('select id from organizations where name = ? and disabled = false', [idOrName]);
  return rows.length === 1 ? String(rows[0]!.id) : null;
}

/**
 * Applies one sign-in's outcome: `role` null takes the membership away (and ends the person's sessions in the
 * organization); otherwise the user is made when new and the membership is made or set to `role`.
 */
export async function applySsoSignIn(
  services: Services,
  person: { email: string; name: string | null },
  organization: string,
  role: Role | null,
): Promise<SsoMembership> {
  const organizationId = await organizationNamed(services, organization);
  if (!organizationId) return { kind: 'no_organization' };
  const email = person.email.trim().toLowerCase();
  const now = services.clock.now();
  return services.db.em.getConnection().transactional(async (trx) => {
    const sql = sqlExecutor(services.db, trx);
    if (role === null) {
      const [user] = await sql('select id from users where email = ?', [email]);
      if (user) {
        await sql('delete from memberships where organization_id = ? and user_id = ?', [organizationId, user.id]);
        await sql('delete from console_sessions where organization_id = ? and user_id = ?', [organizationId, user.id]);
      }
      return { kind: 'removed', organizationId };
    }
    // two first sign-ins at once make one user: the second finds the first's row
    const made = await sql('insert into users (id, email, name, created_at) values (?, ?, ?, ?) on conflict (email) do nothing returning id', [
      randomUUID(), email, person.name?.slice(0, 200) ?? null, now,
    ]);
    const userId = String(made[0]?.id ?? (await sql('select id from users where email = ?', [email]))[0]!.id);
    await sql(
      `insert into memberships (id, organization_id, user_id, email, role, row_version, created_at, updated_at) values (?, ?, ?, ?, ?, 1, ?, ?)
        on conflict (organization_id, user_id) do update set role = excluded.role, updated_at = excluded.updated_at`,
      [randomUUID(), organizationId, userId, email, role, now, now],
    );
    return { kind: 'member', userId, organizationId, role, created: made.length > 0 };
  });
}

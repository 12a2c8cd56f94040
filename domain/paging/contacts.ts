/**
 * Who is reached how when a person is paged: their notification rules for the page's urgency, each on one of their
 * contact methods, in order of delay. The escalation engine asks `contactPlan` for each person a step resolves to.
 *
 * - Only methods that can be used: sms, voice and email ones once verified (contacts-verification.ts); the others as saved.
 * - A person with no usable rule for that urgency (none, or only unverified methods) gets their account email at
 *   once, so nobody paged is left unreachable by a half-finished set-up.
 */
import type { Row } from '../../engine/descriptor.ts';
import { readStore } from '../../engine/operations/context.ts';
import type { FamilyStore } from '../../engine/persistence/store.ts';
import type { Services } from '../../engine/services.ts';
import contactMethods, { VERIFIED_TYPES, type ContactType } from '../../resources/contact_methods.ts';
import notificationRules, { type Urgency } from '../../resources/notification_rules.ts';

export interface PlannedContact {
  /** `id` null: the account email, used when the person has no usable rule */
  contactMethod: { id: string | null; type: ContactType; address: string; name: string };
  delayMinutes: number;
  /** on the account email: why no rule was usable (`no_rule`: none for the urgency; `unverified`: only unverified methods) */
  fallback?: 'no_rule' | 'unverified' | 'not_configured';
}

/** Whether a page may use the method: verified, where its type is verified at all. */
export const usable = (method: Row) => !VERIFIED_TYPES.includes(method.type as ContactType) || method.verified === true;

/**
 * The person's contacts for a page of `urgency`, ordered by delay (then by when the rule was made). `source`: the
 * services (a read outside any transaction) or the store of the running transaction. An unknown user: no contacts.
 */
export async function contactPlan(
  source: Services | FamilyStore,
  { organizationId, userId, urgency, email: known }: { organizationId: string; userId: string; urgency: Urgency; email?: string },
): Promise<PlannedContact[]> {
  const store = 'execute' in source ? source : readStore(source);
  // the caller may know the member's email already (the escalation engine reads it with the user id)
  const [user] = known ? [{ email: known }] : await store.execute('select email from users where id = ?', [userId]);
  if (!user) return [];
  const email = String(user.email).toLowerCase();
  const rules = await store.list(notificationRules, organizationId, { where: { email, urgency } });
  const ids = [...new Set(rules.map((r) => String(r.contact_method_id)))];
  const methods = ids.length ? await store.list(contactMethods, organizationId, { where: { id: { $in: ids }, email } }) : [];
  const byId = new Map(methods.filter(usable).map((m) => [String(m.id), m]));
  const plan = rules
    .filter((r) => byId.has(String(r.contact_method_id)))
    .map((r, i) => ({ rule: r, i }))
    .sort((a, b) => Number(a.rule.delay_minutes) - Number(b.rule.delay_minutes) || a.i - b.i)
    .map(({ rule }) => {
      const m = byId.get(String(rule.contact_method_id))!;
      return { contactMethod: { id: String(m.id), type: m.type as ContactType, address: String(m.address), name: String(m.name) }, delayMinutes: Number(rule.delay_minutes) };
    });
  if (plan.length) return plan;
  return [{ contactMethod: { id: null, type: 'email', address: email, name: 'account email' }, delayMinutes: 0, fallback: rules.length ? 'unverified' : 'no_rule' }];
}

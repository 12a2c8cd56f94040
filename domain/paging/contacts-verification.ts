/**
 * Proving a contact method: `send_verification` sends a six-digit code to the method's address, `verify_contact_method`
 * takes it back and marks the method verified. Only sms, voice and email are verified (the types a page could be
 * misdirected through to someone else's phone or mailbox); a page uses them only once verified (contacts.ts).
 *
 * The code is stored hashed with the method's id in `contact_verifications` (one per method: a new send replaces it),
 * for the address it was sent to (a changed address voids it), with an expiry (the injected clock) and a count of
 * wrong tries. The answer to a send never depends on whether the address exists or the message arrives: mail is queued.
 *
 * `sendVerification` hands the code to the method type's channel (channels/): email queues it for the SMTP transport
 * in the same transaction as the code; a type whose channel sends no codes answers 422 "no SMS provider configured".
 */
import { createHash, randomInt, timingSafeEqual } from 'node:crypto';
import { EntitySchema } from '@mikro-orm/core';
import Type from 'typebox';
import { publicOrganization, type Caller } from '../../engine/auth/caller.ts';
import type { Row } from '../../engine/descriptor.ts';
import { ApiError, validationFailed } from '../../engine/errors.ts';
import { execute } from '../../engine/operations/index.ts';
import { inTransaction } from '../../engine/operations/context.ts';
import { diffRows, recordAudit } from '../../engine/operations/audit.ts';
import { ORGANIZATION } from '../../engine/operations/tool-schemas.ts';
import type { FamilyStore } from '../../engine/persistence/store.ts';
import type { DomainOperation, Services } from '../../engine/services.ts';
import contactMethods, { VERIFIED_TYPES, type ContactType } from '../../resources/contact_methods.ts';
import type { VerificationMessage } from './channels/channel.ts';
import { channelFor } from './channels/index.ts';

/** How long a code works. */
export const CODE_TTL_MS = 10 * 60_000;
/** Wrong tries a code allows before it is void. */
export const CODE_TRIES = 5;
/** The least time between two sends for one method (a resend within it answers 429). */
export const RESEND_AFTER_MS = 60_000;

export const ContactVerificationEntity = new EntitySchema<any>({
  name: 'ContactVerification',
  tableName: 'contact_verifications',
  properties: {
    organization_id: { type: 'string', columnType: 'uuid', primary: true },
    contact_method_id: { type: 'string', columnType: 'text', primary: true },
    address: { type: 'string', columnType: 'text' },
    code_hash: { type: 'string', columnType: 'text' },
    tries: { type: 'integer', columnType: 'int', default: 0 },
    sent_at: { type: 'Date', columnType: 'timestamptz' },
    expires_at: { type: 'Date', columnType: 'timestamptz' },
  },
});

const hashCode = (methodId: string, code: string) => createHash('sha256').update(`${methodId}:${code}`).digest('hex');

function sameHash(a: string, b: string): boolean {
  const x = Buffer.from(a, 'hex');
  const y = Buffer.from(b, 'hex');
  return x.length === y.length && timingSafeEqual(x, y);
}

/**
 * Sends a code through the method's own channel (channels/), inside the transaction that stored it. A type whose
 * channel cannot send codes (sms and voice with no provider) answers a clear 422; nothing is stored (the transaction
 * rolls back).
 */
export async function sendVerification(services: Services, store: FamilyStore, organizationId: string, message: VerificationMessage): Promise<void> {
  const channel = channelFor(message.type);
  if (!channel?.sendVerification) {
    throw new ApiError('validation_failed', `No SMS provider is configured, so no code can be sent by ${message.type}; verify an email method, or ask the operator to set up an SMS and voice provider.`, {
      errors: [{ field: 'type', message: 'no SMS provider configured' }],
    });
  }
  await channel.sendVerification({ services, store, organizationId, now: services.clock.now() }, message);
}

/** The method as the caller may see it: a row of their own (or, for an org admin, anyone's); else 404. */
async function methodFor(services: Services, caller: Caller, id: string): Promise<Row> {
  return (await execute(services, caller, { family: contactMethods.name, op: 'read', id })).data as Row;
}

const ID = Type.String({ minLength: 1, maxLength: 200, description: 'the contact method' });
const STATE = Type.Object(
  {
    id: Type.String(),
    verified: Type.Boolean(),
    expires_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description: 'when the code sent stops working (send_verification)' }),
  },
  { additionalProperties: false },
);

export const sendVerificationOperation: DomainOperation = {
  name: 'send_verification',
  description:
    `Sends a six-digit code to a contact method's address (sms, voice and email methods), to be given back with verify_contact_method within ${CODE_TTL_MS / 60_000} ` +
    `minutes; ${CODE_TRIES} wrong tries void it. A new send replaces the code, at most one a minute per method (429 with Retry-After). The answer is the same ` +
    'whether or not the address exists. Email goes through the deployment\'s outgoing mail; sms and voice answer 422 "no SMS provider configured" until a ' +
    'provider is set up. A person sends for their own methods; an org admin for anyone\'s.',
  input: Type.Object({ id: ID }, { additionalProperties: false }),
  role: 'member',
  kind: 'write',
  // not idempotent: each send makes a new code and a new message (an sms costs money), so a retry takes an
  // Idempotency-Key and replays the first answer instead of sending again
  reachesOutside: true,
  rest: { method: 'POST', path: contactMethods.name, param: 'id', action: 'send_verification' },
  answer: { schema: Type.Object({ data: STATE, organization: ORGANIZATION }), refusals: ['rate_limited'] },
  async run(services, caller, input) {
    const method = await methodFor(services, caller, String(input.id));
    const type = method.type as ContactType;
    if (!VERIFIED_TYPES.includes(type)) {
      throw validationFailed([{ field: 'id', message: `is a ${type} method, which is used as saved; only ${VERIFIED_TYPES.join(', ')} methods are verified` }]);
    }
    const now = services.clock.now();
    const expires = new Date(now.getTime() + CODE_TTL_MS);
    const orgId = caller.organization.id;
    await inTransaction(services, async (store) => {
      const [last] = await store.execute('select sent_at from contact_verifications where organization_id = ? and contact_method_id = ? for update', [orgId, method.id]);
      const since = last ? now.getTime() - new Date(last.sent_at as string).getTime() : Infinity;
      if (since < RESEND_AFTER_MS) {
        const wait = Math.ceil((RESEND_AFTER_MS - since) / 1000);
        throw new ApiError('rate_limited', `A code was sent to this method less than a minute ago; send again in ${wait} seconds.`, { headers: { 'Retry-After': String(wait) }, extra: { retry_after: wait } });
      }
      const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
      await store.execute('delete from contact_verifications where organization_id = ? and contact_method_id = ?', [orgId, method.id]);
      await store.execute(
        'insert into contact_verifications (organization_id, contact_method_id, address, code_hash, tries, sent_at, expires_at) values (?, ?, ?, ?, 0, ?, ?)',
        [orgId, method.id, method.address, hashCode(String(method.id), code), now, expires],
      );
      await sendVerification(services, store, orgId, { type, address: String(method.address), code, name: String(method.name), minutes: CODE_TTL_MS / 60_000 });
    });
    return { json: { data: { id: String(method.id), verified: Boolean(method.verified), expires_at: expires.toISOString() }, organization: publicOrganization(caller.organization) } };
  },
};

export const verifyContactMethod: DomainOperation = {
  name: 'verify_contact_method',
  description:
    'Gives back the code send_verification sent; the right one marks the method verified (a page then uses it). A wrong code answers 422 naming `code` with ' +
    `the tries left (${CODE_TRIES} per code); an expired or used-up code, or one sent before the address changed, answers 422 asking for a new one.`,
  input: Type.Object({ id: ID, code: Type.String({ minLength: 1, maxLength: 12, description: 'the six digits received' }) }, { additionalProperties: false }),
  role: 'member',
  kind: 'write',
  // not idempotent: a code works once, so a repeat answers "no code is waiting"; a retry with the same
  // Idempotency-Key replays the first answer
  rest: { method: 'POST', path: contactMethods.name, param: 'id', action: 'verify' },
  answer: { schema: Type.Object({ data: STATE, organization: ORGANIZATION }) },
  async run(services, caller, input) {
    const method = await methodFor(services, caller, String(input.id));
    const orgId = caller.organization.id;
    const d = services.registry.family(contactMethods);
    const now = services.clock.now();
    // a refused try is counted even though the answer is a refusal: the count commits before the error is thrown
    const refusal = await inTransaction(services, async (store) => {
      const [pending] = await store.execute('select * from contact_verifications where organization_id = ? and contact_method_id = ? for update', [orgId, method.id]);
      const fresh = 'send a new code with send_verification';
      if (!pending || pending.address !== method.address) return `no code is waiting for this method; ${fresh}`;
      if (now.getTime() >= new Date(pending.expires_at as string).getTime()) return `has expired; ${fresh}`;
      if (Number(pending.tries) >= CODE_TRIES) return `was tried wrong ${CODE_TRIES} times and no longer works; ${fresh}`;
      if (!sameHash(String(pending.code_hash), hashCode(String(method.id), String(input.code).trim()))) {
        const tries = Number(pending.tries) + 1;
        await store.execute('update contact_verifications set tries = ? where organization_id = ? and contact_method_id = ?', [tries, orgId, method.id]);
        return tries >= CODE_TRIES ? `is wrong, and that was the last try; ${fresh}` : `is wrong; ${CODE_TRIES - tries} ${CODE_TRIES - tries === 1 ? 'try' : 'tries'} left`;
      }
      await store.execute('delete from contact_verifications where organization_id = ? and contact_method_id = ?', [orgId, method.id]);
      const existing = await store.get(d, orgId, String(method.id), true);
      if (existing && !existing.verified && existing.address === method.address) {
        const written = await store.update(d, existing, { verified: true }, now);
        await recordAudit(services, store, { caller, family: d.name, rowId: String(existing.id), action: 'update', changes: diffRows(d, existing, written), at: now });
      }
      return null;
    });
    if (refusal) throw validationFailed([{ field: 'code', message: refusal }]);
    return { json: { data: { id: String(method.id), verified: true, expires_at: null }, organization: publicOrganization(caller.organization) } };
  },
};

export const CONTACT_OPERATIONS = [sendVerificationOperation, verifyContactMethod];

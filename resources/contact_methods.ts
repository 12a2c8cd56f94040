import Type from 'typebox';
import { parsePhoneNumberFromString } from 'libphonenumber-js';
import { defineFamily, type HookContext, type Row, type WriteStage } from '../engine/descriptor.ts';
import { isEmail } from '../engine/email.ts';
import type { FieldError } from '../engine/errors.ts';
import { emailSchema, normalEmail } from './team_members.ts';

export const CONTACT_TYPES = ['email', 'chat', 'sms', 'voice', 'ntfy', 'pushover', 'webhook'] as const;
export type ContactType = (typeof CONTACT_TYPES)[number];
/** The types a person proves they receive with a code before a page uses them. */
export const VERIFIED_TYPES: readonly ContactType[] = ['email', 'sms', 'voice'];

/** Pushover user and group keys: 30 letters and digits (its API documentation). */
const PUSHOVER_KEY = /^[A-Za-z0-9]{30}$/;
/** An ntfy topic: letters, digits, `-` and `_`, at most 64 (ntfy's own rule). */
const NTFY_TOPIC = /^[-_A-Za-z0-9]{1,64}$/;
/** A user id in the chat workspace (Slack's `U…`, Teams' ids are longer). */
const CHAT_USER = /^[A-Za-z0-9._:@-]{1,128}$/;

/** The address as stored for its type, or the rule it breaks (a message for `address`). */
export function normalAddress(type: string, raw: string): { address: string } | { error: string } {
  const value = raw.trim();
  switch (type) {
    case 'email':
      return isEmail(value) ? { address: value.toLowerCase() } : { error: 'must be an email address for an email contact method' };
    case 'sms':
    case 'voice': {
      const phone = value.startsWith('+') ? parsePhoneNumberFromString(value) : undefined;
      if (!phone || !phone.isValid()) return { error: 'must be a phone number in international form, + and the country code (E.164, e.g. +14155552671)' };
      return { address: phone.number };
    }
    case 'pushover':
      return PUSHOVER_KEY.test(value) ? { address: value } : { error: 'must be a Pushover user or group key (30 letters and digits)' };
    case 'chat':
      return CHAT_USER.test(value) ? { address: value } : { error: 'must be your user id in the organization\'s chat workspace (letters, digits and . _ : @ -)' };
    case 'ntfy':
    case 'webhook': {
      let url: URL;
      try {
        url = new URL(value);
      } catch {
        return { error: `must be an https URL${type === 'ntfy' ? ' of an ntfy topic, https://<server>/<topic>' : ''}` };
      }
      // plain http passes here only to be judged by the outbound policy in validate (the targets check), as every
      // outbound URL is: accepted to a loopback or allow-listed address the deployment lets the service reach (a
      // self-hosted ntfy next to Vigil), refused to any other host
      if (url.protocol !== 'https:' && url.protocol !== 'http:') return { error: 'must be an https URL' };
      if (type === 'ntfy') {
        const topic = url.pathname.slice(1);
        if (!NTFY_TOPIC.test(topic) || url.search || url.hash || url.username || url.password) {
          return { error: 'must be an ntfy topic URL, https://<server>/<topic> (the topic: letters, digits, - and _, at most 64)' };
        }
      }
      return { address: url.href };
    }
    default:
      return { error: 'cannot be checked: the type is unknown' };
  }
}

/** The owner defaults to the calling person; a key (no person) must name one. */
async function withOwner(row: Row, ctx: HookContext): Promise<Row> {
  if (row.email != null) return { ...row, email: normalEmail(row.email) };
  return { ...row, email: await ctx.lookup.callerEmail() };
}

/** The owner must be a member of the organization. */
export async function ownerIsMember(row: Row, stage: WriteStage): Promise<FieldError[]> {
  if (row.email == null) return [{ field: 'email', message: 'is required: name the owner (a person\'s credential may leave it out: they own it)' }];
  if (stage.op === 'update' && row.email === stage.existing?.email) return [];
  const [member] = await stage.ctx.lookup.rows('team_members', { email: row.email });
  return member ? [] : [{ field: 'email', message: 'is not a member of this organization' }];
}

async function prepare(row: Row, _input: Row, stage: WriteStage): Promise<Row> {
  const owned = await withOwner(row, stage.ctx);
  const normal = typeof owned.address === 'string' && typeof owned.type === 'string' ? normalAddress(owned.type, owned.address) : null;
  const address = normal && 'address' in normal ? normal.address : owned.address;
  // a changed address is a new one to prove
  const verified = stage.op === 'update' && stage.existing?.address === address ? Boolean(stage.existing?.verified) : false;
  return { ...owned, address, verified };
}

async function validate(row: Row, stage: WriteStage): Promise<FieldError[]> {
  const errors = await ownerIsMember(row, stage);
  const normal = normalAddress(String(row.type), String(row.address ?? ''));
  if ('error' in normal) errors.push({ field: 'address', message: normal.error });
  else if (row.type === 'ntfy' || row.type === 'webhook') {
    // the guarded client's own address policy: an address it would refuse to call is refused now
    const why = stage.ctx.targets(normal.address, { policy: 'outbound', form: 'url' });
    if (why) errors.push({ field: 'address', message: why });
  }
  return errors;
}

/** A method that notification rules still use is not deleted from under them. */
async function validateDelete(row: Row, ctx: HookContext): Promise<FieldError[]> {
  const rules = await ctx.lookup.rows('notification_rules', { contact_method_id: row.id });
  return rules.length ? [{ field: 'id', message: `is used by ${rules.length} notification rule${rules.length === 1 ? '' : 's'}; delete or change them first` }] : [];
}

export default defineFamily({
  name: 'contact_methods',
  description:
    'A way to reach one person when they are paged: `type` (email; chat, a direct message through the organization\'s chat app; sms; voice; ntfy, a push to ' +
    'a topic on an ntfy server; pushover; webhook, signed like outbound deliveries), `name` (the person\'s label: "phone", "work mail") and `address` ' +
    '(an email; a phone number, stored in E.164 form; the ntfy topic URL `https://<server>/<topic>`; a Pushover user key; the person\'s chat user id; a webhook URL). ' +
    'An ntfy or webhook URL that the service\'s outbound address policy refuses (an internal network) is refused when saved. `email` names the owner, a member of ' +
    'the organization; a person\'s credential may leave it out (they own it). Private: a person sees and writes only their own (another\'s answers 404), on the ' +
    'agent-tool endpoint with a personal token and at /api/v1/me/contact_methods; an org admin (and an admin key) reads and manages everyone\'s; a key below ' +
    'org admin sees none. `verified` is read-only: sms, voice and email methods are proven with a code (`send_verification`, then `verify_contact_method`) before ' +
    'a page uses them, and changing the address makes it unverified again; the other types are used as saved. `type` and `email` are set on create only. ' +
    'A method that notification rules use cannot be deleted (422, `id`). On every plan.',
  kind: 'collection',
  singular: 'contact_method',
  operations: ['list', 'read', 'create', 'update', 'delete'],
  requiredOnCreate: ['type', 'name', 'address'],
  createOnly: ['type', 'email'],
  ownRows: { field: 'email', role: 'org_admin', private: true },
  order: [{ field: 'email', direction: 'asc' }],
  fields: {
    id: Type.String({ readOnly: true }),
    email: emailSchema('the owner: a member of the organization; a person\'s credential may leave it out (their own); set on create only'),
    type: Type.Union(CONTACT_TYPES.map((t) => Type.Literal(t)), { description: 'how the person is reached; set on create only' }),
    name: Type.String({ minLength: 1, maxLength: 100, description: 'the person\'s label for it ("phone", "work mail")' }),
    address: Type.String({ minLength: 1, maxLength: 2048, description: 'where: an email, an E.164 phone number (+ and country code), https://<ntfy server>/<topic>, a Pushover user key, the chat user id, or an https webhook URL' }),
    verified: Type.Boolean({ readOnly: true, default: false, description: 'whether the person proved they receive it (sms, voice and email only; other types stay false and are used as saved)' }),
    created_at: Type.String({ format: 'date-time', readOnly: true }),
    updated_at: Type.String({ format: 'date-time', readOnly: true }),
  },
  hooks: { prepare, validate, validateDelete },
  examples: {
    users: ['conformance-member@example.com', 'conformance-admin@example.com'],
    requires: ['team_members'],
    valid: [
      { email: 'conformance-admin@example.com', type: 'sms', name: 'phone', address: '+14155552671' },
      { email: 'conformance-member@example.com', type: 'email', name: 'work mail', address: 'oncall@example.com' },
      { email: 'conformance-admin@example.com', type: 'ntfy', name: 'push', address: 'https://ntfy.example.com/vigil-pages' },
    ],
    invalid: [
      { body: { email: 'conformance-admin@example.com', type: 'sms', name: 'phone', address: '555-0100' }, field: 'address' },
      { body: { email: 'conformance-admin@example.com', type: 'ntfy', name: 'push', address: 'https://10.0.0.5/topic' }, field: 'address' },
      { body: { email: 'stranger@example.com', type: 'email', name: 'mail', address: 'x@example.com' }, field: 'email' },
      { body: { email: 'conformance-admin@example.com', type: 'fax', name: 'fax', address: '+14155552671' }, field: 'type' },
    ],
    update: { name: 'mobile' },
  },
});

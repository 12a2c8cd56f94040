/**
 * What the sms and voice channels share: which Twilio account an organization sends from (its own paging_providers
 * row, else the operator's VIGIL_TWILIO_*), one form POST to Twilio's REST API through the guarded client with HTTP
 * Basic auth (account SID, auth token), and Twilio's answers in words. The auth token goes only to the configured API
 * base (VIGIL_TWILIO_API_URL): the URL is built here from it and nothing else. The `twilio` package is used only for
 * its signature check and TwiML builders, never for HTTP (its client would bypass the guarded one).
 */
import twilio from 'twilio';
import { ApiError } from '../../../engine/errors.ts';
import { readStore } from '../../../engine/operations/context.ts';
import { tableName } from '../../../engine/persistence/entities.ts';
import type { FamilyStore } from '../../../engine/persistence/store.ts';
import type { Services } from '../../../engine/services.ts';
import pagingProviders from '../../../resources/paging_providers.ts';
import type { SendResult } from './channel.ts';
import { jsonOf, providerCall, refusal } from './provider-call.ts';
import { providerAccounts } from './providers.ts';
import { DEFAULT_TWILIO_API } from './twilio-config.ts';

export interface TwilioAccount {
  accountSid: string;
  authToken: string;
  from: string;
  /** whose it is, for the timeline: never the token */
  owner: 'organization' | 'operator';
}

/** Where Vigil's Twilio webhooks are (docs/paging.md lists them for Twilio's console). */
export const TWILIO_PATHS = { sms: '/paging/twilio/sms', status: '/paging/twilio/status', voice: '/paging/twilio/voice' } as const;

export function twilioWebhookUrl(services: Services, path: string): string {
  return `${services.config.publicUrl.replace(/\/+$/, '')}${path}`;
}

/** The organization's own account when it saved one (its number too, else the operator's), else the operator's; null with neither. */
export async function twilioAccount(services: Services, organizationId: string, store?: Pick<FamilyStore, 'execute'>): Promise<TwilioAccount | null> {
  const own = await providerAccounts(services, organizationId, store);
  const operator = services.config.twilio;
  if (own.twilioAccountSid && own.twilioAuthToken) {
    const from = own.twilioFrom ?? operator?.from ?? null;
    return from ? { accountSid: own.twilioAccountSid, authToken: own.twilioAuthToken, from, owner: 'organization' } : null;
  }
  if (operator?.accountSid && operator.authToken && operator.from) {
    return { accountSid: operator.accountSid, authToken: operator.authToken, from: own.twilioFrom ?? operator.from, owner: 'operator' };
  }
  return null;
}

/**
 * The auth tokens a callback posted with `AccountSid` may be signed with: every organization's that saved that
 * account, and the operator's when it is the operator's account.
 */
export async function tokensForAccount(services: Services, accountSid: string): Promise<string[]> {
  if (!/^AC[0-9a-fA-F]{32}$/.test(accountSid)) return [];
  const family = services.registry.family(pagingProviders);
  const rows = await readStore(services).execute(`select twilio_auth_token from "${tableName(family)}" where twilio_account_sid = ? and twilio_auth_token is not null`, [accountSid]);
  const tokens = rows.map((r) => (typeof r.twilio_auth_token === 'string' ? services.secrets.open(r.twilio_auth_token) : null)).filter((t): t is string => !!t);
  const operator = services.config.twilio;
  if (operator?.accountSid === accountSid && operator.authToken) tokens.push(operator.authToken);
  return [...new Set(tokens)];
}

/** Whether `signature` (X-Twilio-Signature) is Twilio's for this URL and form with any of the tokens (HMAC-SHA1, base64). */
export function signedByTwilio(tokens: readonly string[], signature: string | undefined, url: string, form: Record<string, string>): boolean {
  if (!signature || signature.length > 200) return false;
  return tokens.some((token) => twilio.validateRequest(token, signature, url, form));
}

export const twiml = twilio.twiml;

/** Twilio's error answer in words: its code and message, with the request's secrets and numbers taken out. */
function twilioWords(answer: Record<string, unknown> | null, secrets: string[]): string | undefined {
  if (!answer) return undefined;
  let text = typeof answer.message === 'string' ? answer.message.slice(0, 200) : '';
  for (const secret of secrets) if (secret) text = text.replaceAll(secret, '(removed)');
  const code = typeof answer.code === 'number' ? `Twilio error ${answer.code}` : '';
  return [code, text].filter(Boolean).join(': ') || undefined;
}

const MEANING: Record<number, string> = {
  401: 'the account SID or auth token is wrong',
  403: 'the account may not do this',
  404: 'no such account',
  429: 'Twilio is limiting this account\'s requests',
};

/** POST a form to `/2010-04-01/Accounts/<sid>/<resource>.json`: `sent` with the resource's SID, or `failed` in words. */
export async function twilioPost(services: Services, account: TwilioAccount, resource: 'Messages' | 'Calls', form: URLSearchParams, purpose: string, numbers: string[] = []): Promise<SendResult> {
  const base = (services.config.twilio?.apiUrl ?? DEFAULT_TWILIO_API).replace(/\/+$/, '');
  const called = await providerCall(services, 'Twilio', {
    url: `${base}/2010-04-01/Accounts/${account.accountSid}/${resource}.json`,
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: `Basic ${Buffer.from(`${account.accountSid}:${account.authToken}`).toString('base64')}`,
      'user-agent': 'Vigil-Paging/1',
    },
    body: form.toString(),
    purpose,
  });
  if ('failed' in called) return called.failed;
  const { status } = called.response;
  const answer = jsonOf(called.response);
  if (status !== 201 && status !== 200) {
    return refusal('Twilio', status, twilioWords(answer, [account.authToken, ...numbers]) ?? MEANING[status] ?? (status >= 500 ? 'Twilio is unavailable' : undefined));
  }
  const sid = typeof answer?.sid === 'string' && /^[A-Z]{2}[0-9a-fA-F]{32}$/.test(answer.sid) ? answer.sid : undefined;
  if (!sid) return { status: 'failed', reason: `Twilio answered ${status} without a ${resource === 'Messages' ? 'message' : 'call'} SID` };
  return { status: 'sent', providerId: sid };
}

/** The 422 a verification code answers when it cannot be sent (the transaction then stores no code). */
export function cannotSendCode(type: 'sms' | 'voice', why: string): ApiError {
  return new ApiError('validation_failed', `The verification ${type === 'sms' ? 'text' : 'call'} could not be sent: ${why}.`, { errors: [{ field: 'address', message: why }] });
}

/** The 422 for a deployment and organization without a Twilio account (the wording contacts-verification.ts uses). */
export function noSmsProvider(type: 'sms' | 'voice'): ApiError {
  return new ApiError('validation_failed', `No SMS provider is configured, so no code can be sent by ${type}; verify an email method, or ask an org admin to save a Twilio account (paging_providers) or the operator to set VIGIL_TWILIO_*.`, {
    errors: [{ field: 'type', message: 'no SMS provider configured' }],
  });
}

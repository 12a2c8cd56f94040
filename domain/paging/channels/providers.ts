/**
 * The organization's provider accounts (resources/paging_providers.ts) as a channel uses them: the sealed tokens
 * opened, read once per send. A token never leaves this object except in the request to its own provider.
 */
import { readStore } from '../../../engine/operations/context.ts';
import type { FamilyStore } from '../../../engine/persistence/store.ts';
import { tableName } from '../../../engine/persistence/entities.ts';
import type { Services } from '../../../engine/services.ts';
import pagingProviders from '../../../resources/paging_providers.ts';

export interface ProviderAccounts {
  pushoverAppToken: string | null;
  /** the origin the ntfy access token belongs to */
  ntfyServer: string | null;
  ntfyAccessToken: string | null;
  /** signs webhook pages (Standard Webhooks); null sends them unsigned */
  webhookSigningSecret: string | null;
  /** the organization's Twilio account: SID and token are saved together (the descriptor's rule) */
  twilioAccountSid: string | null;
  twilioAuthToken: string | null;
  twilioFrom: string | null;
}

const NONE: ProviderAccounts = { pushoverAppToken: null, ntfyServer: null, ntfyAccessToken: null, webhookSigningSecret: null, twilioAccountSid: null, twilioAuthToken: null, twilioFrom: null };

/** `store`: the caller's transaction, when it holds one (on PGlite's one connection a read beside it would wait for it). */
export async function providerAccounts(services: Services, organizationId: string, store: Pick<FamilyStore, 'execute'> = readStore(services)): Promise<ProviderAccounts> {
  const family = services.registry.family(pagingProviders);
  const [row] = await store.execute(
    `select pushover_app_token, ntfy_server, ntfy_access_token, webhook_signing_secret, twilio_account_sid, twilio_auth_token, twilio_from from "${tableName(family)}" where organization_id = ? and id = ?`,
    [organizationId, organizationId],
  );
  if (!row) return NONE;
  const open = (sealed: unknown) => (typeof sealed === 'string' ? services.secrets.open(sealed) : null);
  return {
    pushoverAppToken: open(row.pushover_app_token),
    ntfyServer: typeof row.ntfy_server === 'string' ? row.ntfy_server : null,
    ntfyAccessToken: open(row.ntfy_access_token),
    webhookSigningSecret: open(row.webhook_signing_secret),
    twilioAccountSid: typeof row.twilio_account_sid === 'string' ? row.twilio_account_sid : null,
    twilioAuthToken: open(row.twilio_auth_token),
    twilioFrom: typeof row.twilio_from === 'string' ? row.twilio_from : null,
  };
}

import type { Feature, Plan, Role } from '../plans.ts';

export interface Organization {
  id: string;
  name: string;
  plan: Plan;
  disabled: boolean;
  /** per-organization feature switches set by the operator (add-ons), over the plan's table */
  features: Record<string, boolean>;
  /** per-organization settings the operator sets (support switches such as signing for a source), read by hooks */
  flags: Record<string, unknown>;
}

/**
 * `system`: work the service does on its own, never a request (e.g. a provider's model auto-upgrade, audited as such);
 * `session`: a person signed in to the console with a password (engine/auth/sessions.ts);
 * `chat_user`: a person pressing a button or typing a command in the organization's chat workspace, mapped to their
 * membership by email (the credential's id is `<workspace>:<chat user id>`, its userId the member's);
 * `page`: the person a page was sent to, answering it where it landed (a signed link, an SMS reply, a key on a call, a
 * push action): the credential's id is `<channel>:<the page's reference>`, its userId the person's
 */
export type CredentialKind = 'api_key' | 'personal_token' | 'session' | 'chat_user' | 'page' | 'system';
/**
 * Transports a part adds, each a key (`declare module '…/engine/auth/caller.ts' { interface PartTransports { <name>: true } }`,
 * as webhooks/chat/transport.ts does for presses and commands in the chat workspace): the engine names none.
 */
export interface PartTransports {}
/** `console`: the pages for people (web/console), which call the same operations as REST and MCP */
export type Transport = 'rest' | 'mcp' | 'console' | keyof PartTransports;
/** the transports a bearer credential is presented at */
export type ApiTransport = 'rest' | 'mcp';

/** Who is calling, resolved once by the transport and handed to every operation. */
export interface Caller {
  organization: Organization;
  /** `confinedTo`: a console session that may act in this organization only (opened by its own sign-in provider) */
  credential: { kind: CredentialKind; id: string; userId?: string; scopes: readonly string[]; confinedTo?: string };
  /** the effective role: the scope's role for a key; for a user, the membership capped by the token's ceiling */
  role: Role;
  /** `system` only for the service's own work (credential kind `system`) */
  transport: Transport | 'system';
  /** the feature the endpoint itself needs (`config_api` for REST, `mcp` for the agent-tool endpoint); null: none (the console, on every plan) */
  endpointFeature: Feature | null;
  requestId: string;
  /**
   * the person's own surface (/api/v1/me): families with `ownRows` answer and take only rows naming this person,
   * whatever their role
   */
  ownRowsOnly?: true;
}

/** The organization as every answer shows it. */
export function publicOrganization(org: Organization): { id: string; name: string; plan: Plan } {
  return { id: org.id, name: org.name, plan: org.plan };
}

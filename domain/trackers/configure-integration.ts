/**
 * `configure_ticket_integration`: the agent-tool step the spec names before an issue-tracker or
 * sprint-tracker import rule — saves a tracker's credentials, creating its ticket_integrations row or
 * changing it. A thin wrapper: the family's own operations do the work, so credentials have one home.
 */
import Type from 'typebox';
import { publicOrganization } from '../../engine/auth/caller.ts';
import { execute } from '../../engine/operations/index.ts';
import type { DomainOperation } from '../../engine/services.ts';
import { ORGANIZATION, readableRow } from '../../engine/operations/tool-schemas.ts';
import ticketIntegrations from '../../resources/ticket_integrations.ts';

const { provider, base_url, account, api_token, signing_secret } = ticketIntegrations.fields;

export const configureTicketIntegration: DomainOperation = {
  name: 'configure_ticket_integration',
  description:
    'Saves the credentials of a ticket tracker (issue_tracker or sprint_tracker): creates its ticket_integrations row, or changes the ' +
    'fields sent when it exists (an omitted api_token or signing_secret keeps the stored one). The token is write-only and answered as api_token_set. ' +
    'signing_secret is the tracker webhook\'s secret (Linear\'s signing secret, the secret of a Jira admin webhook): once saved, deliveries must be signed with it; null removes it; answered as signing_secret_set.',
  input: Type.Object(
    {
      provider, base_url: Type.Optional(base_url), account: Type.Optional(account), api_token: Type.Optional(api_token),
      signing_secret: Type.Optional(signing_secret),
      // no schema default: this tool also changes a stored row, where sending the default would enable a disabled one
      enabled: Type.Optional(Type.Boolean({ description: 'when false the credentials are kept and not used; a new row is enabled unless false is sent' })),
    },
    { additionalProperties: false },
  ),
  role: 'member',
  feature: 'ticket_systems',
  kind: 'write',
  answer: { schema: Type.Object({ data: readableRow(ticketIntegrations), organization: ORGANIZATION, etag: Type.String() }) },
  async run(services, caller, input) {
    const { provider: kind, ...changes } = input;
    const family = ticketIntegrations.name;
    const existing = (await execute(services, caller, { family, op: 'list' })).list!.data.some((row) => row.provider === kind);
    const result = existing
      ? await execute(services, caller, { family, op: 'update', id: String(kind), body: changes })
      : await execute(services, caller, { family, op: 'create', body: input });
    return { json: { data: result.data!, organization: publicOrganization(caller.organization), etag: result.etag } };
  },
};

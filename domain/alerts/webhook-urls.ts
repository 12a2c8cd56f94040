/**
 * `get_webhook_urls`: the ready-made URL of each inbound source for the caller's organization — what to paste into
 * Alertmanager, Grafana or a pager to start receiving alerts. The URL holds the organization's webhook token (a
 * credential), so it is for organization admins only, as the operator's own view of the organization is.
 */
import Type from 'typebox';
import { webhookUrls } from '../../engine/admin/organizations.ts';
import { readStore } from '../../engine/operations/context.ts';
import { OrganizationEntity } from '../../engine/persistence/entities.ts';
import type { DomainOperation } from '../../engine/services.ts';

export const getWebhookUrls: DomainOperation = {
  name: 'get_webhook_urls',
  description:
    'The ready-made webhook URL of each inbound source (alertmanager, grafana, …) for this organization: paste one into the product that ' +
    'sends alerts. The URL carries the organization\'s webhook token, so only an organization admin may read it.',
  input: Type.Object({}, { additionalProperties: false }),
  role: 'org_admin',
  kind: 'read',
  rest: { method: 'GET', path: 'webhook_urls' },
  answer: { schema: Type.Object({ data: Type.Record(Type.String(), Type.String({ description: 'the URL' }), { description: 'by source segment' }) }) },
  async run(services, caller) {
    const [row] = await readStore(services).execute(`select webhook_token_sealed from ${OrganizationEntity.meta.tableName} where id = ?`, [caller.organization.id]);
    const token = services.secrets.open(String(row!.webhook_token_sealed));
    return { json: { data: webhookUrls(services, token) } };
  },
};

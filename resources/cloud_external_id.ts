import { randomBytes } from 'node:crypto';
import Type from 'typebox';
import { defineFamily } from '../engine/descriptor.ts';

export default defineFamily({
  name: 'cloud_external_id',
  description:
    'The organization\'s external id for assumed-role access to its cloud accounts, and the platform principal a customer\'s role must trust. ' +
    'The external id is minted on the first read (`vigil-` and 32 random hex digits) and stored then, so every later read answers the same value; ' +
    'two first reads that race answer the one value stored. Nothing can change it: the resource is read-only (PUT answers 405). ' +
    '`trust_principal_id` is the deployment\'s VIGIL_TRUST_PRINCIPAL_ID, the same for every organization. ' +
    'The answer holds these two fields only, never a data source\'s role or credentials.',
  kind: 'singleton',
  operations: ['read'],
  persistOnFirstRead: true,
  fields: {
    external_id: Type.String({ readOnly: true, description: 'the organization\'s external id for assumed-role access; minted on the first read, stable afterwards' }),
    trust_principal_id: Type.String({ readOnly: true, description: 'the platform principal that a customer\'s role must trust (the deployment\'s VIGIL_TRUST_PRINCIPAL_ID)' }),
  },
  generated: { external_id: () => `vigil-${randomBytes(16).toString('hex')}` },
  computed: { trust_principal_id: (_row, ctx) => ctx.config.trustPrincipalId },
  examples: { valid: [], invalid: [] },
});

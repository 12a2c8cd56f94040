/** `resolve_service_bindings`: the resolved view of one service and environment, each field with its source. */
import Type from 'typebox';
import { publicOrganization } from '../../engine/auth/caller.ts';
import { ApiError } from '../../engine/errors.ts';
import { execute } from '../../engine/operations/index.ts';
import type { DomainOperation } from '../../engine/services.ts';
import serviceBindings from '../../resources/service_bindings.ts';
import { convention, discovered, resolve, type Source } from './discovery.ts';
import { JSON_VALUE, ORGANIZATION } from '../../engine/operations/tool-schemas.ts';

const SOURCES: readonly Source[] = ['override', 'discovery', 'convention', 'unbound'];

export const resolveServiceBindings: DomainOperation = {
  name: 'resolve_service_bindings',
  description:
    'The resolved telemetry binding of one service and environment: the stored override (service_bindings) folded over what discovery ' +
    'found in the organization\'s cloud accounts and the OpenTelemetry convention (traces by service.name, logs filtered on service.name and ' +
    'deployment.environment). Each field answers its value and its source: override, discovery, convention or unbound. An empty list in the ' +
    'override binds nothing on purpose and wins over discovery. Discovery is cached per organization and any write to a binding invalidates it.',
  input: Type.Object(
    {
      service: serviceBindings.fields.service,
      environment: Type.Optional(serviceBindings.fields.environment),
    },
    { additionalProperties: false },
  ),
  role: 'viewer',
  kind: 'read',
  answer: {
    schema: Type.Object({
      data: Type.Object({
        service: Type.String(),
        environment: Type.String({ description: 'empty for the service\'s binding without an environment' }),
        override_stored: Type.Boolean({ description: 'whether service_bindings holds an override for the pair' }),
        fields: Type.Record(Type.String(), Type.Object({
          value: JSON_VALUE('the value in force (null when unbound)'),
          source: Type.Union(SOURCES.map((s) => Type.Literal(s)), { description: 'where the value comes from' }),
        }), { description: 'one entry per binding field' }),
      }),
      organization: ORGANIZATION,
    }),
  },
  async run(services, caller, input) {
    const service = String(input.service);
    const environment = typeof input.environment === 'string' ? input.environment : '';
    const id = environment ? `${service}/${environment}` : service;
    let override = null;
    try {
      override = (await execute(services, caller, { family: serviceBindings.name, op: 'read', id })).data ?? null;
    } catch (error) {
      if (!(error instanceof ApiError) || error.code !== 'not_found') throw error;
    }
    const fields = resolve(override, await discovered(caller.organization.id, service, environment), convention(service, environment));
    return { json: { data: { service, environment, override_stored: override !== null, fields }, organization: publicOrganization(caller.organization) } };
  },
};

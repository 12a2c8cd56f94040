/**
 * The argument names a family's fields take in configuration as code (the HCL export, `vigil plan`, `vigil apply`).
 *
 * The file is meant to be usable as Terraform configuration, where some names inside a `resource` block are not
 * the resource's own: `provider`, `count`, `for_each`, `depends_on` are meta-arguments and `lifecycle`,
 * `connection`, `provisioner`, `locals`, `dynamic`, `_` block types Terraform reads itself (hashicorp/terraform
 * internal/configs/resource.go, decodeResourceBlock), and `source`, `version`, `providers` are reserved for
 * future use. A field so named is exported as `<field>_value` (ai_providers.provider → `provider_value`), and
 * read back under that name only. A write-only field is set by `<field>_wo` and rotated by `<field>_wo_version`.
 * The registry refuses at load a family two of whose argument names would be one (engine/registry.ts).
 */
import type { FamilyDescriptor } from './descriptor.ts';
import { planFields } from './fields.ts';

export const TERRAFORM_RESERVED: readonly string[] = [
  'provider', 'count', 'for_each', 'depends_on', 'lifecycle', 'connection', 'provisioner',
  'source', 'version', 'providers', 'locals', 'dynamic', '_',
];

/** The argument a settable, readable field is written as. */
export const fieldArgument = (field: string): string => (TERRAFORM_RESERVED.includes(field) ? `${field}_value` : field);
/** The argument that sets a write-only field, and the one that says when to send it again. */
export const secretArgument = (field: string): string => `${field}_wo`;
export const secretVersionArgument = (field: string): string => `${field}_wo_version`;

/** Every argument name a family's blocks may hold, and the field each one sets. */
export function familyArguments(d: FamilyDescriptor): { argument: string; field: string }[] {
  const { writable, secrets } = planFields(d);
  return writable.flatMap((field) =>
    secrets.includes(field)
      ? [{ argument: secretArgument(field), field }, { argument: secretVersionArgument(field), field }]
      : [{ argument: fieldArgument(field), field }],
  );
}

/**
 * Why a family's arguments cannot be written, or undefined: two arguments of one name (a field named like
 * another's derived name), or an argument that is still reserved. Read-only field names count too: a
 * settable field exported as `x_value` beside a read-only `x_value` would read back ambiguously.
 */
export function argumentMistake(d: FamilyDescriptor): string | undefined {
  const seen = new Map<string, string>();
  for (const { argument, field } of familyArguments(d)) {
    if (TERRAFORM_RESERVED.includes(argument)) return `field ${field} would be written as ${argument}, which Terraform reserves.`;
    const other = seen.get(argument) ?? (argument !== field && argument in d.fields ? argument : undefined);
    if (other !== undefined && other !== field) {
      return `field ${field} is written in configuration files as ${argument}, which is also ${other === argument ? 'a field of its own' : `the argument of field ${other}`}; rename one of them.`;
    }
    seen.set(argument, field);
  }
  return undefined;
}

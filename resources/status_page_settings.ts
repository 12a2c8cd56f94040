import Type from 'typebox';
import { defineFamily, nullable, type Rule } from '../engine/descriptor.ts';
import { targetUrl } from '../engine/targets.ts';

export const HISTORY_DAYS = [7, 30, 90] as const;

const publicNeedsSlug: Rule = {
  description: 'slug must be set while public is true (a public page needs its address)',
  fields: ['slug', 'public'],
  check: (row) => (row.public === true && (row.slug === null || row.slug === undefined) ? [{ field: 'slug', message: 'must be set while public is true: the public page is served under its slug' }] : []),
};

export default defineFamily({
  name: 'status_page_settings',
  description:
    'The organization\'s public status page: its title, whether it is published, its address and how much history it shows. One row per ' +
    'organization, read and changed field by field (an omitted field keeps its value); until the first change a read answers the defaults with ' +
    '`updated_at` null. `slug` names the page in its public address and is unique across the whole deployment: a slug another organization ' +
    'holds is refused with 422 naming `slug` (the answer says nothing about that organization), while any number of organizations may leave it ' +
    'null. A slug is 3 to 63 lowercase letters, digits and hyphens, starting and ending with a letter or digit (it can serve as a DNS label). ' +
    'Setting it to null or another value frees the old slug at once. The page is published only while `public` is true, which needs a slug; ' +
    'a private page is not served. `support_url` (https without user:password@, or null for none) is the contact link the page shows; the service never calls it, so its host is not judged. `history_days` (7, 30 or 90, ' +
    'default 90) is how far back resolved incidents are listed. The components and incidents on the page are the status_page_components and ' +
    'status_page_incidents families. Reading needs the viewer role, changing the org admin role (publishing is an organization decision); both ' +
    'need the status page feature.',
  kind: 'singleton',
  operations: ['read', 'update'],
  features: { read: 'status_page', update: 'status_page' },
  roles: { update: 'org_admin' },
  uniqueAcrossOrganizations: ['slug'],
  fields: {
    title: Type.String({ minLength: 1, maxLength: 100, default: 'Status', description: 'the page heading' }),
    public: Type.Boolean({ default: false, description: 'whether the page is published; needs a slug' }),
    slug: nullable(
      Type.String({ minLength: 3, maxLength: 63, pattern: '^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$', 'x-format-description': '3 to 63 lowercase letters, digits and hyphens, starting and ending with a letter or digit' }),
      { default: null, description: 'the page\'s public address; unique across the deployment; null for none' },
    ),
    support_url: nullable(targetUrl('link'), { default: null, description: 'an https contact link shown on the page; null shows none' }),
    history_days: Type.Union(HISTORY_DAYS.map((d) => Type.Literal(d)), { default: 90, description: 'days of resolved incidents the page lists' }),
    updated_at: nullable(Type.String({ format: 'date-time' }), { readOnly: true, description: 'null until the settings are first saved' }),
  },
  rules: [publicNeedsSlug],
  examples: {
    valid: [],
    invalid: [
      { body: { title: '' }, field: 'title' },
      { body: { title: 't'.repeat(101) }, field: 'title' },
      { body: { slug: 'ab' }, field: 'slug' },
      { body: { slug: 'Acme' }, field: 'slug' },
      { body: { slug: '-acme' }, field: 'slug' },
      { body: { slug: null, public: true }, field: 'slug' },
      { body: { support_url: 'http://help.example.com' }, field: 'support_url' },
      { body: { support_url: 'https://user:pw@help.example.com' }, field: 'support_url' },
      { body: { history_days: 14 }, field: 'history_days' },
    ],
    // no slug here: the shared suites apply this body in several organizations of one deployment
    update: { title: 'Acme status', support_url: 'https://help.example.com', history_days: 30 },
  },
});

/**
 * Which organization publishes the page at a slug: the one lookup the public page, its feeds and its subscribers
 * share. Unknown, private, disabled and unlicensed pages are all null, alike.
 */
import { organizationFromRow } from '../../engine/auth/authenticate.ts';
import { readStore } from '../../engine/operations/context.ts';
import { tableName } from '../../engine/persistence/entities.ts';
import { hasFeature } from '../../engine/plans.ts';
import type { Services } from '../../engine/services.ts';
import { checkValue } from '../../engine/validation.ts';
import statusPageSettings from '../../resources/status_page_settings.ts';

export interface PublishedPage {
  organizationId: string;
  slug: string;
  title: string;
  supportUrl: string | null;
  historyDays: number;
}

/** A slug as status_page_settings defines it: anything else cannot name a page, so no query is made. */
export function isSlug(value: string): boolean {
  return checkValue('slug', statusPageSettings.fields.slug, value).length === 0;
}

/**
 * One query, whatever the slug names: an unknown slug, a private page and a disabled organization's page take the
 * same path (the organization is joined, and a disabled one excluded, in the query itself) and answer the same null.
 */
export async function publishedPage(services: Services, slug: string): Promise<PublishedPage | null> {
  if (!isSlug(slug)) return null;
  const settings = services.registry.family(statusPageSettings);
  const [found] = await readStore(services).execute(
    `select s."title", s."support_url", s."history_days", o.id, o.name, o.plan, o.disabled, o.features, o.flags
       from "${tableName(settings)}" s join organizations o on o.id::text = s."organization_id"::text
      where s."slug" = ? and s."public" = true and o.disabled = false`,
    [slug],
  );
  const organization = found ? organizationFromRow(found) : null;
  if (!organization || !hasFeature(organization.plan, organization.features, 'status_page')) return null;
  return {
    organizationId: organization.id,
    slug,
    title: String(found!.title ?? 'Status'),
    supportUrl: typeof found!.support_url === 'string' ? found!.support_url : null,
    historyDays: Number(found!.history_days) || 90,
  };
}

/** The page's public address, under the service's public URL. */
export const pageUrl = (services: Services, slug: string) => `${services.config.publicUrl.replace(/\/+$/, '')}/status/${slug}`;

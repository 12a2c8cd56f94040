/**
 * Which organization publishes the page at a slug: the one lookup the public page, its feeds and its subscribers
 * share. Unknown, private, disabled and unlicensed pages are all null, alike.
 */
import { loadOrganization } from '../../engine/auth/authenticate.ts';
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

export async function publishedPage(services: Services, slug: string): Promise<PublishedPage | null> {
  if (!isSlug(slug)) return null;
  const settings = services.registry.family(statusPageSettings);
  const [found] = await readStore(services).execute(
    `select "organization_id", "title", "support_url", "history_days" from "${tableName(settings)}" where "slug" = ? and "public" = true`,
    [slug],
  );
  if (!found) return null;
  const organization = await loadOrganization(services.db, String(found.organization_id));
  if (!organization || organization.disabled || !hasFeature(organization.plan, organization.features, 'status_page')) return null;
  return {
    organizationId: organization.id,
    slug,
    title: String(found.title ?? 'Status'),
    supportUrl: typeof found.support_url === 'string' ? found.support_url : null,
    historyDays: Number(found.history_days) || 90,
  };
}

/** The page's public address, under the service's public URL. */
export const pageUrl = (services: Services, slug: string) => `${services.config.publicUrl.replace(/\/+$/, '')}/status/${slug}`;

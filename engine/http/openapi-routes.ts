/**
 * Serves the OpenAPI document and its readable page under the configuration API's prefix, with no
 * credential: the engine's own router, which `serve` mounts before the modules' routes and the authenticated API. Both are
 * built once, on the first request, from the registry and domain operations the service runs with.
 */
import Router from '@koa/router';
import type { Services } from '../services.ts';
import { CONFIG_PREFIX } from './config-api.ts';
import { renderDocs } from './openapi-docs.ts';
import { pageHeaders, STATIC_PAGE_POLICY } from './page-headers.ts';
import { DOCS_PATH, DOCUMENT_PATH, openApiDocument } from './openapi.ts';
import type { Json } from './openapi-schemas.ts';


export function openApiRoutes(services: Services): Router {
  for (const path of [DOCUMENT_PATH, DOCS_PATH]) {
    const name = path.slice(1);
    if (services.registry.get(name) || services.domain.some((op) => op.rest?.path === name)) {
      throw new Error(`${CONFIG_PREFIX}${path} serves the API reference; a family or domain operation may not use that path.`);
    }
  }
  let document: Json | undefined;
  let page: string | undefined;
  const current = () => (document ??= openApiDocument(services.registry, services.domain, services.config));

  const router = new Router({ prefix: CONFIG_PREFIX });
  router.get(DOCUMENT_PATH, (ctx) => {
    ctx.body = current();
  });
  router.get(DOCS_PATH, (ctx) => {
    ctx.type = 'text/html; charset=utf-8';
    // the page loads nothing from anywhere: no script, no font, no image; only its own inline styles
    pageHeaders(ctx, STATIC_PAGE_POLICY);
    ctx.body = page ??= renderDocs(current());
  });
  return router;
}

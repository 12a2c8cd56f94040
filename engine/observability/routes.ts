/**
 * A request's route for logs and metrics: a bounded set of labels, and never a credential. Webhook tokens are in
 * the URL and ids are unbounded, so every segment that is not a known word becomes a placeholder; an unknown path
 * is `other`, so a client sending random paths cannot grow the metric series.
 */
export interface RouteNames {
  /** families and domain REST paths served under /api/v1/config */
  configPaths: ReadonlySet<string>;
  /** webhook source segments */
  webhookSources: ReadonlySet<string>;
}

const ADMIN_WORDS = new Set(['organizations', 'users', 'api_keys', 'members', 'tokens', 'webhook_token', 'rotate', 'revoke_previous', 'audit_log', 'password', 'sign_in_link']);
/** the console's first path segments (web/console); what follows is a card key, a token or a page word */
const CONSOLE_WORDS = new Set(['login', 'logout', 'sign-in', 'organization', 'board', 'deployments', 'deliveries', 'alerts', 'incidents', 'assets']);

export function routeOf(path: string, names: RouteNames): string {
  const s = path.split('/').filter(Boolean);
  if (s.length === 0) return '/';
  if (s[0] === 'healthz' || s[0] === 'metrics') return s.length === 1 ? `/${s[0]}` : 'other';
  if (s[0] === 'webhooks') {
    if (!s[1] || !names.webhookSources.has(s[1])) return '/webhooks/other';
    const rest = s.length > 3 ? (s.length > 4 ? '/:card/comments' : '/:card') : '';
    return `/webhooks/${s[1]}/:token${rest}`;
  }
  if (s[0] === 'status') return '/status/:slug';
  if (CONSOLE_WORDS.has(s[0]!)) return `/${s[0]}${s.length > 1 ? '/:id' : ''}${s.length > 2 ? '/…' : ''}`;
  if (s[0] !== 'api') return 'other';
  if (s[1] === 'mcp' && s.length === 2) return '/api/mcp';
  if (s[1] === 'admin' && s[2] === 'v1') return `/api/admin/v1${s.slice(3).map((seg) => `/${ADMIN_WORDS.has(seg) ? seg : ':id'}`).join('')}`;
  // a configuration path also served at /api/v1/<path> (the deploy gate for CI systems)
  if (s[1] === 'v1' && s.length === 3 && names.configPaths.has(s[2]!)) return `/api/v1/${s[2]}`;
  if (s[1] === 'v1' && s[2] === 'config') {
    if (s.length === 3) return '/api/v1/config';
    const family = names.configPaths.has(s[3]!) || s[3] === 'openapi.json' || s[3] === 'docs' ? s[3] : ':unknown';
    return `/api/v1/config/${family}${s.length > 4 ? '/:id' : ''}${s.length > 5 ? '/…' : ''}`;
  }
  return 'other';
}

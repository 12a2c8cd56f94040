/** The public status page: its routes, its feeds and its subscribe forms. */
import type { Module } from '../../engine/module.ts';
import { statusPageRoutes } from './routes.ts';
import { subscribeRoutes } from './subscribe.ts';

/** The forms post url-encoded bodies: their routes read them raw, before the API's JSON-only check. */
export const statusPageModule: Module = { name: 'status-page', routes: [statusPageRoutes], rawRoutes: [subscribeRoutes] };

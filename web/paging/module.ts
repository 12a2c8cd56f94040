/** The links in a page (acknowledge, resolve): public routes whose only credential is the signed link. */
import type { Module } from '../../engine/module.ts';
import { pageLinkRoutes } from './page-links.ts';

export const pageLinksModule: Module = { name: 'page-links', rawRoutes: [pageLinkRoutes] };

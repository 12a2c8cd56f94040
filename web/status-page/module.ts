/** The public status page: its routes. */
import type { Module } from '../../engine/module.ts';
import { statusPageRoutes } from './routes.ts';

export const statusPageModule: Module = { name: 'status-page', routes: [statusPageRoutes] };

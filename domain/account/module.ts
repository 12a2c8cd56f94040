/** A person's own account: their personal access tokens (domain/account/tokens.ts), which the console's Account page runs. */
import type { Module } from '../../engine/module.ts';
import { ACCOUNT_OPERATIONS } from './tokens.ts';

export const accountModule: Module = { name: 'account', operations: [...ACCOUNT_OPERATIONS] };

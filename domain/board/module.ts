/** The operations board: its tables and agent tools. Its webhook handler (`tickets`) is wired by webhooks/. */
import type { Module } from '../../engine/module.ts';
import { BOARD_ENTITIES } from './entities.ts';
import { BOARD_OPERATIONS } from './tools.ts';

export const boardModule: Module = { name: 'board', entities: BOARD_ENTITIES, operations: BOARD_OPERATIONS };

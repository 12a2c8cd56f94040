/** The HCL export: its operation (REST and agent tool). */
import type { Module } from '../engine/module.ts';
import { exportOperation } from './export.ts';

export const exportModule: Module = { name: 'export', operations: [exportOperation] };

import Type from 'typebox';
import { defineFamily, type Row } from '../engine/descriptor.ts';

const inForce = (row: Row, now: Date) => row.ends_at === null || row.ends_at === undefined || new Date(row.ends_at as string).getTime() > now.getTime();

export default defineFamily({
  name: 'alert_mutes',
  description:
    'A mute: alerts whose title, source or fingerprint contain the pattern (without regard to case) are still recorded, with status `muted`, ' +
    'but page no one and start no automatic investigation while the mute is in force. Without `duration_minutes` a mute lasts until removed. ' +
    'Expired mutes stay listed (`active: false`), readable and deletable as history. Mutes have no update: remove one and create another. ' +
    'Only one mute in force may hold a pattern; an expired one does not block a new mute with the same pattern.',
  kind: 'collection',
  operations: ['list', 'read', 'create', 'delete'],
  naturalKey: ['pattern'],
  naturalKeyWhile: { description: 'while it is in force', holds: inForce },
  requiredOnCreate: ['pattern'],
  createOnly: ['duration_minutes'],
  order: [{ field: 'created_at', direction: 'desc' }],
  fields: {
    id: Type.String({ readOnly: true }),
    pattern: Type.String({ minLength: 2, maxLength: 200, description: 'substring matched without regard to case against title, source and fingerprint; stored lowercased' }),
    duration_minutes: Type.Union([Type.Integer({ minimum: 1, maximum: 10080 }), Type.Null()], { default: null, description: 'create-only; omitted means until removed' }),
    reason: Type.Union([Type.String({ maxLength: 255 }), Type.Null()], { default: null }),
    ends_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { readOnly: true, description: 'null means until removed; a past value means expired' }),
    created_by_user_id: Type.Union([Type.String(), Type.Null()], { readOnly: true, description: 'the user who created it; null when an organization key did' }),
    created_via: Type.String({ readOnly: true, description: 'rest or mcp' }),
    active: Type.Boolean({ readOnly: true, description: 'whether the mute is in force now' }),
    created_at: Type.String({ format: 'date-time', readOnly: true }),
    updated_at: Type.String({ format: 'date-time', readOnly: true }),
  },
  computed: { active: (row, { now }) => inForce(row, now) },
  hooks: {
    prepare: (row, _input, { op, ctx }) => {
      const next: Row = { ...row, pattern: String(row.pattern).toLowerCase() };
      if (op === 'create') {
        next.ends_at = typeof row.duration_minutes === 'number' ? new Date(ctx.now.getTime() + row.duration_minutes * 60_000) : null;
        next.created_by_user_id = ctx.caller.credential.userId ?? null;
        next.created_via = ctx.caller.transport;
      }
      return next;
    },
  },
  examples: {
    valid: [
      { pattern: 'Disk Space', duration_minutes: 60, reason: 'maintenance' },
      { pattern: 'flappy-check' },
    ],
    invalid: [
      { body: {}, field: 'pattern' },
      { body: { pattern: 'x' }, field: 'pattern' },
      { body: { pattern: 'ok', duration_minutes: 10081 }, field: 'duration_minutes' },
      { body: { pattern: 'ok', duration_minutes: 0 }, field: 'duration_minutes' },
      { body: { pattern: 'ok', reason: 'r'.repeat(256) }, field: 'reason' },
    ],
  },
});

/** The column types tables are written with (MikroORM EntitySchema properties), so every table spells them alike. */
export const uuid = { type: 'string', columnType: 'uuid' } as const;
export const text = { type: 'string', columnType: 'text' } as const;
export const time = { type: 'Date', columnType: 'timestamptz' } as const;
export const jsonb = { type: 'json', columnType: 'jsonb' } as const;
/** the same column, null allowed */
export const optional = <T extends object>(p: T) => ({ ...p, nullable: true }) as const;
export const optionalText = optional(text);
export const optionalTime = optional(time);

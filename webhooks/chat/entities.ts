/** The chat side's tables. */
import type { EntitySchema } from '@mikro-orm/core';

export const CHAT_ENTITIES: EntitySchema[] = [];

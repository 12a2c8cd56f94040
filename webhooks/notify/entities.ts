/** The email notifier's tables. */
import type { EntitySchema } from '@mikro-orm/core';

export const EMAIL_ENTITIES: EntitySchema[] = [];

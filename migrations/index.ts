/** Every committed migration, oldest first: written by `npm run db:migration` (bin/migrations-index.ts); do not edit. */
import { Migration20261122014024 } from './Migration20261122014024.ts';
import { Migration20261122022104 } from './Migration20261122022104.ts';
import { Migration20261122035208 } from './Migration20261122035208.ts';
import { Migration20261122044715 } from './Migration20261122044715.ts';
import { Migration20261122070056 } from './Migration20261122070056.ts';
import { Migration20261122071535 } from './Migration20261122071535.ts';
import { Migration20261122075400 } from './Migration20261122075400.ts';
import { Migration20261124231014 } from './Migration20261124231014.ts';
import { Migration20261124232040 } from './Migration20261124232040.ts';
import { Migration20261124232233 } from './Migration20261124232233.ts';
import { Migration20261125033410 } from './Migration20261125033410.ts';
import { Migration20261125201339 } from './Migration20261125201339.ts';
import { Migration20261126155657 } from './Migration20261126155657.ts';
import { Migration20261126155818 } from './Migration20261126155818.ts';
import { Migration20261126155913 } from './Migration20261126155913.ts';
import { Migration20261126160212 } from './Migration20261126160212.ts';
import { Migration20261126165616 } from './Migration20261126165616.ts';
import { Migration20261126165619 } from './Migration20261126165619.ts';
import { Migration20261126170816 } from './Migration20261126170816.ts';
import { Migration20261126171255 } from './Migration20261126171255.ts';
import { Migration20261126172136 } from './Migration20261126172136.ts';
import { Migration20261128144642 } from './Migration20261128144642.ts';

export const MIGRATIONS = [
  { name: 'Migration20261122014024', class: Migration20261122014024 },
  { name: 'Migration20261122022104', class: Migration20261122022104 },
  { name: 'Migration20261122035208', class: Migration20261122035208 },
  { name: 'Migration20261122044715', class: Migration20261122044715 },
  { name: 'Migration20261122070056', class: Migration20261122070056 },
  { name: 'Migration20261122071535', class: Migration20261122071535 },
  { name: 'Migration20261122075400', class: Migration20261122075400 },
  { name: 'Migration20261124231014', class: Migration20261124231014 },
  { name: 'Migration20261124232040', class: Migration20261124232040 },
  { name: 'Migration20261124232233', class: Migration20261124232233 },
  { name: 'Migration20261125033410', class: Migration20261125033410 },
  { name: 'Migration20261125201339', class: Migration20261125201339 },
  { name: 'Migration20261126155657', class: Migration20261126155657 },
  { name: 'Migration20261126155818', class: Migration20261126155818 },
  { name: 'Migration20261126155913', class: Migration20261126155913 },
  { name: 'Migration20261126160212', class: Migration20261126160212 },
  { name: 'Migration20261126165616', class: Migration20261126165616 },
  { name: 'Migration20261126165619', class: Migration20261126165619 },
  { name: 'Migration20261126170816', class: Migration20261126170816 },
  { name: 'Migration20261126171255', class: Migration20261126171255 },
  { name: 'Migration20261126172136', class: Migration20261126172136 },
  { name: 'Migration20261128144642', class: Migration20261128144642 },
];

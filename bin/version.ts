/** The service's version: package.json's, read beside bin/ in the checkout and beside dist/ in the installed package. */
import { readFileSync } from 'node:fs';

export const VERSION: string = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).version;

/**
 * The environment a test gives the `vigil` processes it starts: Node's compile cache, shared by every test process on
 * the machine, so a child spends its start serving rather than compiling the same modules again (a third to half of
 * a CLI run's time, more on a busy machine). Node keys each entry by the source and its own version.
 */
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const COMPILE_CACHE_ENV = { NODE_COMPILE_CACHE: process.env.NODE_COMPILE_CACHE || join(tmpdir(), 'vigil-test-compile-cache') };

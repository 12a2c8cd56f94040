/**
 * The image builds its bundle from the source folders the Containerfile copies: a layer added to the tree (the
 * folders .dependency-cruiser.cjs names as ours) but not copied breaks the image's build, which only the container
 * test (podman, PostgreSQL run) would show. Read statically here, in seconds.
 */
import { readFileSync } from 'node:fs';
import t from 'tap';

const root = new URL('../../', import.meta.url);
const ours = /const OURS = '\^\(([^)]+)\)\/'/.exec(readFileSync(new URL('.dependency-cruiser.cjs', root), 'utf8'));
const containerfile = readFileSync(new URL('Containerfile', root), 'utf8');
const copied = new Set([...containerfile.matchAll(/^COPY (\S+) \.\/\1$/gm)].map((m) => m[1]));

t.ok(ours, '.dependency-cruiser.cjs names the source folders');
for (const folder of ours![1]!.split('|')) t.ok(copied.has(folder), `the Containerfile copies ${folder}/ into the build stage`);
t.equal(readFileSync(new URL('Dockerfile', root), 'utf8'), containerfile, 'Dockerfile is the Containerfile');

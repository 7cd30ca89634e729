// The project's folder, for files a test reads or runs (fixtures, docs, bin/svc), whether the test
// runs compiled (dist/test/..., as `npm test` runs it) or from its source under tsx.
import { basename, dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const up = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const ROOT = basename(up) === 'dist' ? dirname(up) : up;

/** A path inside the project. */
export const fromRoot = (...parts: string[]): string => resolve(ROOT, ...parts);

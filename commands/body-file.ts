// A message body read from a file (`--html FILE`, `--text FILE`): the file's text, or a usage
// error (exit 2) naming the flag and the file when it cannot be read.
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { SvcError } from '../src/errors.js';

export async function bodyFile(cwd: string, file: string, flag: string): Promise<string> {
  try {
    return await readFile(resolve(cwd, file), 'utf8');
  } catch (e) {
    throw new SvcError('usage', `cannot read ${flag} ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
}

// Before a command destroys something (a domain's DKIM key, a key, a list and its subscribers, an
// endpoint) or acts in bulk (a replay of every failed delivery): on a terminal it asks, naming what
// will be lost, and goes on only on "y" or "yes". `--yes` skips the question; without a terminal
// (a script, CI) it goes on as it always did, so scripts keep working.
import { createInterface } from 'node:readline';
import { SvcError } from '../src/errors.js';
import type { Context } from './context.js';
import type { OptionSpec } from './spec.js';

export const YES: OptionSpec = { flags: '-y, --yes', description: 'do not ask for confirmation on a terminal' };

/** Whether the command may ask: stdin and stderr are a terminal and --yes was not given. */
export const mayAsk = (ctx: Context, opts: Record<string, unknown>): boolean =>
  opts.yes !== true && ctx.io.stdin?.isTTY === true && ctx.io.stderr.isTTY === true;

/** Asks `question` (what will be lost) on a terminal; a no, or the end of input, is `cancelled` (exit 1). */
export async function confirm(ctx: Context, opts: Record<string, unknown>, question: string): Promise<void> {
  if (!mayAsk(ctx, opts)) return;
  const rl = createInterface({ input: ctx.io.stdin!, output: ctx.io.stderr as NodeJS.WritableStream, terminal: false });
  try {
    ctx.io.stderr.write(`${question} [y/N] `);
    const line = await rl[Symbol.asyncIterator]().next();
    if (line.done || !/^\s*y(es)?\s*$/i.test(line.value)) throw new SvcError('cancelled');
  } finally {
    rl.close();
  }
}

import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { SvcError } from '../../src/errors.js';
import type { CommandSpec } from '../spec.js';

/** How often the progress line is redrawn. */
const PROGRESS_MS = 250;

export default {
  noun: 'subscribers',
  verb: 'import',
  summary: 'import subscribers from a CSV file (streamed, any size): {imported, skipped, errors}',
  args: ['<list_id>', '<file.csv>'],
  ids: { args: { 0: 'list' } },
  options: [
    {
      flags: '--dry-run',
      description: 'read and check every row, write nothing: what would be imported, skipped, and new to the workspace',
    },
  ],
  async run(ctx, [listId, file], opts) {
    const path = resolve(ctx.io.cwd, file!);
    let size: number;
    try {
      size = (await stat(path)).size;
    } catch (e) {
      throw new SvcError('usage', `cannot read ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
    }
    const service = await ctx.parts('lists');
    // On a terminal, a line on stderr that says how far it is: rows, rows a second, time left.
    const tty = Boolean(ctx.io.stderr.isTTY);
    const started = Date.now();
    let read = 0;
    let drawn = 0;
    let rows = 0;
    const draw = (done = false) => {
      const s = (Date.now() - started) / 1000;
      const rate = s > 0 ? rows / s : 0;
      const left = read > 0 && rate > 0 ? ((size - read) / read) * s : 0;
      ctx.io.stderr.write(
        `\r\x1b[K${rows.toLocaleString('en')} rows, ${Math.round(rate).toLocaleString('en')}/s${done ? `, ${s.toFixed(1)} s` : `, about ${Math.ceil(left)} s left`}${done ? '\n' : ''}`,
      );
    };
    // Read when iterated, counting as it goes: a 'data' listener would start the stream flowing
    // before the importer reads it, and what flowed by then would be lost.
    const source = () => {
      read = 0;
      const stream = createReadStream(path, { highWaterMark: 256 * 1024 });
      return (async function* () {
        for await (const chunk of stream as AsyncIterable<Buffer>) {
          read += chunk.length;
          yield chunk;
        }
      })();
    };
    const result = await service.lists.importCsv(
      await ctx.workspace(),
      listId!,
      source,
      (n) => {
        rows = n;
        if (tty && Date.now() - drawn >= PROGRESS_MS) {
          drawn = Date.now();
          draw();
        }
      },
      { dryRun: opts.dryRun === true },
    );
    if (tty) draw(true);
    ctx.out.result(result, () => {
      if ('dry_run' in result)
        ctx.out.line(
          `would import ${result.imported} (${result.new_contacts} new to the workspace), skip ${result.skipped}; --dry-run: nothing was written`,
        );
      else ctx.out.line(`imported ${result.imported}, skipped ${result.skipped}`);
      for (const e of result.errors ?? []) ctx.out.note(`line ${e.line}: ${e.email}: ${e.error}`);
      if (result.errors_total !== undefined) ctx.out.note(`(and ${result.errors_total - (result.errors?.length ?? 0)} more)`);
    });
  },
} satisfies CommandSpec;

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
  async run(ctx, [listId, file]) {
    const path = resolve(ctx.io.cwd, file!);
    let size: number;
    try {
      size = (await stat(path)).size;
    } catch (e) {
      throw new SvcError('usage', `cannot read ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
    }
    const service = await ctx.service();
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
    const source = () => {
      read = 0;
      const stream = createReadStream(path, { highWaterMark: 256 * 1024 });
      stream.on('data', (c) => (read += c.length));
      return stream as AsyncIterable<Buffer>;
    };
    const result = await service.lists.importCsv(await ctx.workspace(), listId!, source, (n) => {
      rows = n;
      if (tty && Date.now() - drawn >= PROGRESS_MS) {
        drawn = Date.now();
        draw();
      }
    });
    if (tty) draw(true);
    ctx.out.result(result, () => {
      ctx.out.line(`imported ${result.imported}, skipped ${result.skipped}`);
      for (const e of result.errors ?? []) ctx.out.note(`line ${e.line}: ${e.email}: ${e.error}`);
      if (result.errors_total !== undefined) ctx.out.note(`(and ${result.errors_total - (result.errors?.length ?? 0)} more)`);
    });
  },
} satisfies CommandSpec;

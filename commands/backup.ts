// svc backup --out FILE: a consistent snapshot of a file store (a tar file), taken by the daemon
// while it runs (over its admin socket) or by this command when none does. Postgres: pg_dump.
import { isAbsolute, resolve } from 'node:path';
import { SvcError } from '../src/errors.js';
import type { CommandSpec } from './spec.js';

export default {
  verb: 'backup',
  summary: 'write a consistent snapshot of the file store (while the daemon runs, too) to --out FILE; Postgres: pg_dump',
  options: [{ flags: '--out <file>', description: 'the snapshot to write (a tar file; it must not exist yet)' }],
  async run(ctx, _args, opts) {
    if (typeof opts.out !== 'string' || !opts.out) throw new SvcError('usage', 'missing --out FILE');
    // The daemon writes it: the path must mean the same there.
    const out = isAbsolute(opts.out) ? opts.out : resolve(ctx.io.cwd, opts.out);
    const { store } = await ctx.parts();
    const snap = await store.backup.snapshot(out);
    ctx.out.result({ file: snap.file, bytes: snap.bytes }, () =>
      ctx.out.line(`wrote ${snap.file}: ${snap.files} files, ${(snap.bytes / 1048576).toFixed(1)} MiB`),
    );
  },
} satisfies CommandSpec;

// svc restore FILE: a snapshot (svc backup) unpacked into a new, empty file store (--store). Its
// queued mail is held, not sent, until `svc queue retry --all` (or --send-queued says at once), so a
// restore beside a live original never hands the same mail off twice.
import { isAbsolute, resolve } from 'node:path';
import { SvcError } from '../src/errors.js';
import { describeStore } from '../src/config.js';
import type { CommandSpec } from './spec.js';

export default {
  verb: 'restore',
  createsStore: true,
  summary: 'unpack a backup into a new, empty file store (--store); its queued mail is held until svc queue retry --all',
  args: ['<file>'],
  options: [{ flags: '--send-queued', description: 'let the restored queue go at once (only when the original no longer sends)' }],
  async run(ctx, [file], opts) {
    const location = ctx.config().store;
    if (location.kind !== 'file')
      throw new SvcError(
        'usage',
        `svc restore is for the file store; restore a Postgres store with pg_restore (docs/operating.md "Backups")`,
      );
    const { restoreSnapshot } = await import('../src/store/sqlite/snapshot.js');
    await restoreSnapshot(isAbsolute(file!) ? file! : resolve(ctx.io.cwd, file!), location.dir);
    const service = await ctx.parts('queue');
    const held = opts.sendQueued === true ? { held: 0 } : await service.queue.hold();
    ctx.out.result({ store: describeStore(location), held: held.held }, () => {
      ctx.out.line(`restored ${describeStore(location)}`);
      if (held.held)
        ctx.out.note(`${held.held} queued message(s) held: svc queue retry --all sends them (once the original store no longer does)`);
    });
  },
} satisfies CommandSpec;

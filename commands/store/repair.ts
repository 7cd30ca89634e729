import { SvcError } from '../../src/errors.js';
import type { CommandSpec } from '../spec.js';
import { printStoreReport } from './render.js';

export default {
  noun: 'store',
  verb: 'repair',
  summary: 'say what would be repaired (unreadable journal lines set aside, torn tails cut); --apply does it, with svc serve stopped',
  options: [{ flags: '--apply', description: 'make the changes (without it, a dry run that changes nothing)' }],
  async run(ctx, _args, opts) {
    const config = ctx.config();
    if (config.store.kind === 'postgres')
      throw new SvcError('usage', 'svc store repair is for file stores; Postgres keeps its own consistency');
    const dir = config.store.dir;
    const { repairFileStore } = await import('../../src/store/file/check.js');
    if (!opts.apply) {
      const report = await repairFileStore(dir, false);
      ctx.out.result(report, () => {
        printStoreReport(ctx.out, report);
        for (const a of report.actions) ctx.out.line(`would ${a.action} (${a.file})`);
        if (report.actions.length) ctx.out.line('dry run: nothing changed; run again with --apply');
      });
      return 0;
    }
    // Rewriting a journal under a running daemon would move the lines it reads: take the lock.
    const { lockForMaintenance } = await import('../../src/store/file/lock.js');
    const lock = await lockForMaintenance(dir, 'svc store repair --apply');
    try {
      const report = await repairFileStore(dir, true);
      ctx.out.result(report, () => {
        for (const a of report.actions) ctx.out.line(`${a.action} (${a.file})`);
        if (!report.actions.length) ctx.out.line('nothing to repair');
        printStoreReport(ctx.out, report);
      });
      return report.ok ? 0 : 1;
    } finally {
      await lock.release();
    }
  },
} satisfies CommandSpec;

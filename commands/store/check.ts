// commands/store/: `svc store check|rekey`: the embedded store's own files.
import { SvcError } from '../../src/errors.js';
import type { CommandSpec } from '../spec.js';
import { printStoreReport } from './render.js';

/** Exit status (CONTRACT.md): 0 nothing wrong, 3 checked and something needs attention. */
const NEEDS_ATTENTION = 3;

export default {
  noun: 'store',
  verb: 'check',
  summary: 'check svc.json and have SQLite check svc.db (integrity, references, schema); changes nothing (exit 0 clean, 3 problems)',
  async run(ctx) {
    const config = ctx.config();
    if (config.store.kind === 'postgres') {
      // Postgres keeps its own consistency: the check is that it answers with the right schema.
      const service = await ctx.parts();
      const report = { store: service.store.describe, ok: true, problems: [] };
      ctx.out.result(report, () => ctx.out.line(`${report.store}: schema is current; nothing else to check`));
      return 0;
    }
    const { checkStore } = await import('../../src/store/sqlite/check.js');
    // A directory that holds no store is a mistake in --store, not a clean store.
    const { existsSync } = await import('node:fs');
    if (!existsSync(config.store.dir))
      throw new SvcError(
        'not_found',
        `no svc store at ${config.store.dir} (svc init makes one; --store, SVC_STORE or the config file names another)`,
      );
    const report = await checkStore(config.store.dir);
    ctx.out.result(report, () => printStoreReport(ctx.out, report));
    return report.ok ? 0 : NEEDS_ATTENTION;
  },
} satisfies CommandSpec;

// svc version: what this binary is, for bug reports and upgrades: its version, the commit it was
// built from, Node's version, the Postgres schema version it needs (svc migrate brings a
// database to it; a newer one is refused), the SQLite it carries for the embedded store, and whether
// Node keeps the compiled modules between runs (its compile cache, Node 22 and later: bin/svc).
import { buildInfo } from '../src/build-info.js';
import type { CommandSpec } from './spec.js';

export default {
  verb: 'version',
  summary: 'the version, build, Node version and store schema version of this binary',
  async run(ctx) {
    const { latestVersion } = await import('../src/store/postgres/migrations.js');
    const { sqliteVersion } = await import('../src/store/sqlite/database.js');
    const out = {
      ...buildInfo(),
      node: process.version,
      schema: await latestVersion(),
      sqlite: sqliteVersion(),
      start: ctx.io.start ?? null,
    };
    ctx.out.result(out, () => {
      ctx.out.line(`svc ${out.version}${out.commit ? ` (${out.commit})` : ''}`);
      ctx.out.line(`node ${out.node}; postgres schema version ${out.schema}`);
      if (out.built_at) ctx.out.line(`built ${out.built_at}`);
      ctx.out.line(`sqlite ${out.sqlite} (the embedded store)`);
      const start = out.start;
      if (start)
        ctx.out.line(
          start.compile_cache ? `compiled modules kept in ${start.compile_cache}` : 'no compile cache (Node 22 and later keep one)',
        );
    });
  },
} satisfies CommandSpec;

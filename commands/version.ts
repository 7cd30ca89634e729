// svc version: what this binary is, for bug reports and upgrades: its version, the commit it was
// built from, Node's version, the Postgres schema version it needs (svc migrate brings a
// database to it; a newer one is refused), how it locks a file store (flock(2) from native/, or
// flock(1) where native/ was not built at install, with why), and whether Node keeps the compiled
// modules between runs (its compile cache, Node 22 and later: bin/svc).
import { buildInfo } from '../src/build-info.js';
import type { CommandSpec } from './spec.js';

export default {
  verb: 'version',
  summary: 'the version, build, Node version and store schema version of this binary',
  async run(ctx) {
    const { latestVersion } = await import('../src/store/postgres/migrations.js');
    const { flockMethod } = await import('../src/store/file/flock.js');
    const lock = flockMethod();
    const out = {
      ...buildInfo(),
      node: process.version,
      schema: await latestVersion(),
      file_store_lock: lock.name,
      start: ctx.io.start ?? null,
    };
    ctx.out.result(out, () => {
      ctx.out.line(`svc ${out.version}${out.commit ? ` (${out.commit})` : ''}`);
      ctx.out.line(`node ${out.node}; postgres schema version ${out.schema}`);
      if (out.built_at) ctx.out.line(`built ${out.built_at}`);
      ctx.out.line(`file store lock: ${lock.name}${lock.why ? ` (${lock.why}; node scripts/build-native.mjs builds it)` : ''}`);
      const start = out.start;
      if (start)
        ctx.out.line(
          start.compile_cache ? `compiled modules kept in ${start.compile_cache}` : 'no compile cache (Node 22 and later keep one)',
        );
    });
  },
} satisfies CommandSpec;

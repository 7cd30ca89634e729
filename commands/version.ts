// svc version: what this binary is, for bug reports and upgrades: its version, the commit it was
// built from, Node's version, and the Postgres schema version it needs (svc migrate brings a
// database to it; a newer one is refused).
import { buildInfo } from '../src/build-info.js';
import type { CommandSpec } from './spec.js';

export default {
  verb: 'version',
  summary: 'the version, build, Node version and store schema version of this binary',
  async run(ctx) {
    const { latestVersion } = await import('../src/store/postgres/migrations.js');
    const out = { ...buildInfo(), node: process.version, schema: await latestVersion() };
    ctx.out.result(out, () => {
      ctx.out.line(`svc ${out.version}${out.commit ? ` (${out.commit})` : ''}`);
      ctx.out.line(`node ${out.node}; postgres schema version ${out.schema}`);
      if (out.built_at) ctx.out.line(`built ${out.built_at}`);
    });
  },
} satisfies CommandSpec;

// svc version: what this binary is, for bug reports and upgrades: its version, the commit it was
// built from, Node's version, and the Postgres schema version it needs (svc migrate brings a
// database to it; a newer one is refused).
import { readFileSync } from 'node:fs';
import type { CommandSpec } from './spec.js';

const readJson = (rel: string): Record<string, unknown> | null => {
  try {
    return JSON.parse(readFileSync(new URL(rel, import.meta.url), 'utf8')) as Record<string, unknown>;
  } catch {
    return null;
  }
};

export default {
  verb: 'version',
  summary: 'the version, build, Node version and store schema version of this binary',
  async run(ctx) {
    const { latestVersion } = await import('../src/store/postgres/migrations.js');
    // dist/commands/ in a build; commands/ when run from source (tests): package.json is one or two up.
    const pkg = readJson('../../package.json') ?? readJson('../package.json');
    const build = readJson('../build.json');
    const out = {
      version: String(pkg?.version ?? 'unknown'),
      commit: (build?.commit as string | null | undefined) ?? null,
      built_at: (build?.built_at as string | null | undefined) ?? null,
      node: process.version,
      schema: await latestVersion(),
    };
    ctx.out.result(out, () => {
      ctx.out.line(`svc ${out.version}${out.commit ? ` (${out.commit})` : ''}`);
      ctx.out.line(`node ${out.node}; postgres schema version ${out.schema}`);
      if (out.built_at) ctx.out.line(`built ${out.built_at}`);
    });
  },
} satisfies CommandSpec;

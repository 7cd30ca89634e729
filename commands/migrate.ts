import { SvcError } from '../src/errors.js';
import type { CommandSpec } from './spec.js';

export default {
  verb: 'migrate',
  summary: 'apply pending Postgres schema migrations and print what was done',
  async run(ctx) {
    const { store } = await ctx.service({ check: false });
    const { PgStore } = await import('../src/store/postgres/pg-store.js');
    if (!(store instanceof PgStore))
      throw new SvcError('usage', `svc migrate is for postgres stores; ${store.describe} needs no migration`);
    const r = await store.migrate();
    ctx.out.result(r, () => {
      for (const name of r.applied) ctx.out.line(`applied ${name}`);
      ctx.out.line(r.applied.length ? `schema is at version ${r.version}` : `schema is up to date (version ${r.version})`);
    });
  },
} satisfies CommandSpec;

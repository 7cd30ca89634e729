import type { CommandSpec } from '../spec.js';

export default {
  noun: 'workspaces',
  verb: 'list',
  summary: 'list workspaces',
  async run(ctx) {
    const rows = (await (await ctx.docService()).store.workspaces.list()).map(({ id, name, plan, created_at }) => ({
      id,
      name,
      plan,
      created_at,
    }));
    ctx.out.result(rows, () => ctx.out.table(rows, ['name', 'plan', 'id', 'created_at']));
  },
} satisfies CommandSpec;

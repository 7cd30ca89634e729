import type { CommandSpec } from '../spec.js';

export default {
  noun: 'domains',
  verb: 'list',
  summary: "list the workspace's domains",
  async run(ctx) {
    const service = await ctx.docService('domains');
    const all = await service.domains.list(await ctx.workspace());
    ctx.out.result(all, () =>
      ctx.out.table(
        all.map((d) => ({
          domain: d.domain,
          status: d.status,
          checks: d.records.map((r) => `${r.purpose}:${r.status ?? '-'}`).join(' '),
          checked_at: d.checked_at,
          id: d.id,
        })),
        ['domain', 'status', 'checks', 'checked_at', 'id'],
      ),
    );
  },
} satisfies CommandSpec;

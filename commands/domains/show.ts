import type { CommandSpec } from '../spec.js';
import { printDomain } from './render.js';

export default {
  noun: 'domains',
  verb: 'show',
  summary: 'the five records, their last statuses, and how they changed',
  args: ['<domain>'],
  async run(ctx, [domain]) {
    const service = await ctx.docService('domains');
    const v = await service.domains.show(await ctx.workspace(), domain!);
    ctx.out.result(v, () => printDomain(ctx.out, v, { history: true }));
  },
} satisfies CommandSpec;

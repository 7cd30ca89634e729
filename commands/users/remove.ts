import type { CommandSpec } from '../spec.js';

export default {
  noun: 'users',
  verb: 'remove',
  summary: 'remove a person from the workspace and end their sessions (not the last owner)',
  args: ['<email>'],
  async run(ctx, [email]) {
    const service = await ctx.parts('people');
    const r = await service.people.remove(await ctx.workspace(), email!);
    ctx.out.result(r, () => ctx.out.line(`removed ${r.email}`));
  },
} satisfies CommandSpec;

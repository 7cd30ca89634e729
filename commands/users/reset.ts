import type { CommandSpec } from '../spec.js';

export default {
  noun: 'users',
  verb: 'reset',
  summary: "end a person's sessions and print a new one-time sign-in link (they choose a new password)",
  args: ['<email>'],
  async run(ctx, [email]) {
    const service = await ctx.parts('people');
    const r = await service.people.reset(await ctx.workspace(), email!);
    ctx.out.result(r, () => {
      ctx.out.line(r.sign_in_url);
      ctx.out.note(`${r.email}: signed out everywhere; this link works once, for 24 hours`);
    });
  },
} satisfies CommandSpec;

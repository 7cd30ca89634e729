import type { CommandSpec } from '../spec.js';

export default {
  noun: 'users',
  verb: 'set-role',
  summary: "change a person's role (owner, admin or member); a workspace keeps at least one owner",
  args: ['<email>', '<role>'],
  async run(ctx, [email, role]) {
    const service = await ctx.parts('people');
    const u = await service.people.setRole(await ctx.workspace(), email!, role!);
    ctx.out.result(u, () => ctx.out.line(`${u.email} is now ${u.role}`));
  },
} satisfies CommandSpec;

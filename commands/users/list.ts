import type { CommandSpec } from '../spec.js';

export default {
  noun: 'users',
  verb: 'list',
  summary: "the workspace's people and their roles",
  async run(ctx) {
    const service = await ctx.parts('people');
    const all = await service.people.list(await ctx.workspace());
    ctx.out.result(
      all.map(({ id, email, name, role, created_at, last_sign_in_at }) => ({ id, email, name, role, created_at, last_sign_in_at })),
      () =>
        ctx.out.table(
          all.map((u) => ({ ...u, name: u.name ?? '', last_sign_in_at: u.last_sign_in_at ?? 'never' })),
          ['email', 'name', 'role', 'last_sign_in_at'],
        ),
    );
  },
} satisfies CommandSpec;

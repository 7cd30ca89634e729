// commands/users/: `svc users ...`, one file per verb: the workspace's people (src/people/).
import { SvcError } from '../../src/errors.js';
import type { CommandSpec } from '../spec.js';

export default {
  noun: 'users',
  verb: 'create',
  summary:
    'add a person to the workspace with a role (a seat of the plan); mails them an invitation from --system-sender, or prints a one-time sign-in link, valid 24 hours',
  args: ['<email>'],
  options: [
    { flags: '--role <role>', description: 'owner, admin or member (required)' },
    { flags: '--name <name>', description: 'their display name' },
  ],
  async run(ctx, [email], opts) {
    const service = await ctx.parts('people');
    const ws = await ctx.workspace();
    if (typeof opts.role !== 'string') throw new SvcError('usage', 'missing --role (owner, admin or member)');
    const u = await service.people.create(
      ws,
      { email: email!, role: String(opts.role), ...(opts.name !== undefined ? { name: String(opts.name) } : {}) },
      { via: 'operator' },
    );
    ctx.out.result({ id: u.id, email: u.email, name: u.name, role: u.role, sign_in_url: u.sign_in_url }, () => {
      if (u.sign_in_url) {
        ctx.out.line(u.sign_in_url);
        ctx.out.note(
          `${u.email} (${u.role}) added to workspace ${ws.name}: give them this link to choose a password; it works once, for 24 hours (\`svc users reset ${u.email}\` makes a new one)`,
        );
      } else if (u.mailed)
        ctx.out.note(`${u.email} (${u.role}) added to workspace ${ws.name}: an invitation was mailed to them from the system sender`);
      else ctx.out.note(`${u.email} (${u.role}) added to workspace ${ws.name}: they have a password already and sign in with it`);
    });
  },
} satisfies CommandSpec;

// svc workspaces delete NAME --yes: the operator's way to what an owner does in the web app
// (src/workspaces/deletion.ts). It asks for --yes (all of the workspace's data goes, and nothing
// brings it back), ends the workspace at once, then removes its data here in batches unless a
// daemon took that on first.
import { SvcError } from '../../src/errors.js';
import type { CommandSpec } from '../spec.js';

export default {
  noun: 'workspaces',
  verb: 'delete',
  summary: 'delete a workspace and all its data (keys, people, domains, mail, inbox, lists); --yes to confirm',
  args: ['<name>'],
  options: [{ flags: '--yes', description: 'confirm: all of its data is deleted and cannot be brought back' }],
  async run(ctx, [name], opts) {
    const service = await ctx.parts('deletion', 'workspaces');
    const ws = await service.workspaces.byName(name!);
    if (opts.yes !== true)
      throw new SvcError(
        'usage',
        `deleting workspace ${ws.name} deletes all its data (messages, team inbox, lists and subscribers, domains, keys, webhooks and people) and cannot be undone; add --yes to confirm`,
      );
    await service.deletion.request(ws, 'operator');
    const [d] = (await service.store.workspaces.deletions()).filter((x) => x.id === ws.id);
    const r = d ? await service.deletion.purge(d) : { removed: 0, done: false, heldElsewhere: true };
    const out = { id: ws.id, name: ws.name, deleted: true, records_removed: r.removed, data_removed: r.done };
    ctx.out.result(out, () =>
      ctx.out.line(
        r.done
          ? `workspace ${ws.name} deleted with all its data (${r.removed} records)`
          : `workspace ${ws.name} deleted: nobody can use it any more; its data is being removed by svc serve`,
      ),
    );
  },
} satisfies CommandSpec;

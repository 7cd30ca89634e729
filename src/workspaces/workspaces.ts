// Workspaces (tenants): everything belongs to one. CONTRACT.md `svc workspaces ...`.
import { SvcError } from '../errors.js';
import type { Workspace } from '../store/types.js';
import type { Deps } from '../deps.js';
import { parsePlan, type Plan } from './plans.js';

// A short name: it is the `tenant` of GET /me and what operators type after --workspace.
const NAME = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

export function workspaceService({ store, clock, random }: Deps) {
  async function byName(name: string): Promise<Workspace> {
    const ws = await store.workspaces.getByName(name);
    if (!ws) throw new SvcError('not_found', `workspace '${name}' not found`);
    return ws;
  }

  return {
    async create(name: string, plan: Plan | string = 'trial'): Promise<Workspace> {
      if (!NAME.test(name)) {
        throw new SvcError('invalid_argument', `invalid workspace name '${name}': lowercase letters, digits and inner hyphens, at most 63`);
      }
      return store.workspaces.create({ id: random.uuid(), name, plan: parsePlan(plan), created_at: clock.now().toISOString() });
    },

    list: () => store.workspaces.list(),

    byName,

    async setPlan(name: string, plan: string): Promise<Workspace> {
      const parsed = parsePlan(plan);
      const ws = await byName(name);
      const updated = await store.workspaces.setPlan(ws.id, parsed);
      if (!updated) throw new SvcError('not_found', `workspace '${name}' not found`);
      return updated;
    },

    /**
     * The workspace a workspace-scoped command works on: the one named, or the only one there is.
     */
    async select(name: string | undefined): Promise<Workspace> {
      if (name !== undefined) return byName(name);
      const all = await store.workspaces.list();
      if (all.length === 1) return all[0]!;
      throw new SvcError(
        'usage',
        all.length === 0
          ? 'no workspace yet: create one with `svc workspaces create NAME`'
          : `--workspace is required (${all.length} workspaces exist)`,
      );
    },
  };
}

export type WorkspaceService = ReturnType<typeof workspaceService>;

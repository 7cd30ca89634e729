// Workspaces (tenants): everything belongs to one. CONTRACT.md `svc workspaces ...`.
import { SvcError } from '../errors.js';
import type { Workspace } from '../model/workspace.js';
import type { DepsOf } from '../deps.js';
import { parsePlan, PLAN_LIMITS, type Plan } from '../model/workspace.js';
import { inboxWindows, sendWindows } from './send-quota.js';
import { trialDates } from './trial.js';
import { selectWorkspace, workspaceByName } from './select.js';

// A short name: it is the `tenant` of GET /me and what operators type after --workspace.
const NAME = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

/** A new workspace's name and plan, checked before any store is opened (or made) for it. */
export function checkNewWorkspace(name: string, plan: Plan | string): Plan {
  if (!NAME.test(name))
    throw new SvcError('invalid_argument', `invalid workspace name '${name}': lowercase letters, digits and inner hyphens, at most 63`);
  return parsePlan(plan);
}

export function workspaceService({
  store,
  clock,
  random,
}: DepsOf<'workspaces' | 'usage' | 'domains' | 'addresses' | 'subscribers' | 'people' | 'inbox'>) {
  const byName = (name: string) => workspaceByName(store.workspaces, name);

  async function quotas(ws: Workspace) {
    const now = clock.now();
    const windows = [...sendWindows(ws, now), ...inboxWindows(ws, now)];
    const used = await store.usage.get(
      ws.id,
      windows.map((w) => w.key),
    );
    const limits = PLAN_LIMITS[ws.plan];
    const [domains, addresses, contacts, people, stored] = await Promise.all([
      store.domains.listByWorkspace(ws.id),
      store.addresses.listByWorkspace(ws.id),
      store.subscribers.contacts(ws.id),
      store.people.list(ws.id),
      store.inbox.usage(ws.id),
    ]);
    const month = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)).toISOString();
    const day = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1)).toISOString();
    return [
      ...windows.map((w) => ({
        kind: w.key.startsWith('inbox-') ? 'inbox_sends' : 'api_sends',
        used: used[w.key] ?? 0,
        limit: w.limit,
        window: w.window,
        resets_at: w.resets_at,
      })),
      // Nothing spends AI actions yet (the assistant is to come): none used.
      { kind: 'ai_actions', used: 0, limit: limits.ai_actions_per_month, window: 'month', resets_at: month },
      { kind: 'ai_actions', used: 0, limit: limits.ai_actions_per_day, window: 'day', resets_at: day },
      { kind: 'domains', used: domains.length, limit: limits.domains, window: null, resets_at: null },
      { kind: 'addresses', used: addresses.length, limit: limits.addresses, window: null, resets_at: null },
      { kind: 'contacts', used: contacts, limit: limits.contacts, window: null, resets_at: null },
      { kind: 'seats', used: people.length, limit: limits.seats, window: null, resets_at: null },
      { kind: 'storage', used: stored, limit: limits.storage_bytes, window: null, resets_at: null },
    ];
  }

  return {
    async create(name: string, plan: Plan | string = 'trial'): Promise<Workspace> {
      return store.workspaces.create({
        id: random.uuid(),
        name,
        plan: checkNewWorkspace(name, plan),
        created_at: clock.now().toISOString(),
      });
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

    /** Every quota of spec.md "Plan quotas": used, limit (null = unlimited), window and reset time where it resets. */
    async usage(name: string) {
      const ws = await byName(name);
      return { workspace: ws.name, plan: ws.plan, quotas: await quotas(ws) };
    },

    /** CONTRACT.md `svc workspaces show`: the plan, every quota, and a trial's dates (null on a plan). */
    async show(name: string) {
      const ws = await byName(name);
      const dates = trialDates(ws);
      return {
        id: ws.id,
        name: ws.name,
        plan: ws.plan,
        created_at: ws.created_at,
        usage: await quotas(ws),
        read_only_at: dates?.read_only_at ?? null,
        delete_at: dates?.delete_at ?? null,
      };
    },

    /** The workspace a workspace-scoped command works on: the one named, or the only one there is. */
    select: (name: string | undefined) => selectWorkspace(store.workspaces, name),
  };
}

export type WorkspaceService = ReturnType<typeof workspaceService>;

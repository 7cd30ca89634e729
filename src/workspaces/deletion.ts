// Deleting a workspace: by its owner in the app, or at the trial's end after its three
// warnings (src/people/trial-warnings.ts). request() ends it at once for everyone (keys and memberships go, it
// leaves every list and look-up, its name is free); run() then removes its data in batches. With
// several daemons on one store, one holds a deletion at a time (claimDeletion, renewed at every
// batch and taken over when its holder stopped for DELETION_STALE_MS), and the one batch that
// removes the workspace itself is the one that logs it: a deletion is done and logged once.
import type { DepsOf } from '../deps.js';
import type { Workspace, WorkspaceDeletion } from '../model/workspace.js';

/** Records removed per store call: a batch holds a transaction (Postgres) briefly. */
export const DELETION_BATCH = 500;
/** A holder that renewed its claim longer ago than this stopped: another daemon takes over. */
export const DELETION_STALE_MS = 5 * 60_000;

export function workspaceDeletion(deps: DepsOf<'workspaces'>) {
  const { store, clock, log, random, bus } = deps;
  // This process among the daemons on the store.
  const holder = `${process.pid}:${random.bytes(6).toString('hex')}`;

  const api = {
    /** Ends the workspace now; false when it was already deleted. The data goes at the next run(). */
    async request(ws: Workspace, reason: string): Promise<boolean> {
      const done = await store.workspaces.markDeleted(ws.id, clock.now().toISOString(), reason);
      if (!done) return false;
      log.info(`workspace ${ws.name} deleted (${reason}): its keys and members are removed now, its data in batches`);
      bus?.publish('deleted');
      return true;
    },

    /** Removes the data of every deleted workspace this daemon can hold, to the end; how many finished. */
    async run(stopping: () => boolean = () => false): Promise<{ deleted: number }> {
      let deleted = 0;
      for (const d of await store.workspaces.deletions()) if ((await purge(d, stopping)).done) deleted++;
      return { deleted };
    },

    purge,
  };

  /**
   * Removes one deleted workspace's data in batches while this process holds it: the records it
   * removed, whether it finished (and logged it), and whether another process holds it instead.
   */
  async function purge(
    d: WorkspaceDeletion,
    stopping: () => boolean = () => false,
  ): Promise<{ removed: number; done: boolean; heldElsewhere: boolean }> {
    let removed = 0;
    while (!stopping()) {
      if (!(await store.workspaces.claimDeletion(d.id, holder, clock.now().toISOString(), DELETION_STALE_MS)))
        return { removed, done: false, heldElsewhere: true };
      const r = await store.workspaces.purge(d.id, DELETION_BATCH);
      removed += r.removed;
      if (r.done) {
        log.info(
          `workspace ${d.name}: its data is deleted (${removed} records in this process's batches; ${d.reason}, asked at ${d.deleted_at})`,
        );
        return { removed, done: true, heldElsewhere: false };
      }
      // Nothing removed and not done: written to meanwhile; the next run looks again.
      if (!r.removed) break;
    }
    return { removed, done: false, heldElsewhere: false };
  }

  return api;
}

export type WorkspaceDeletionService = ReturnType<typeof workspaceDeletion>;

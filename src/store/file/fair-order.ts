// File store: the outbound queue's jobs in the order a fair claim takes them (QueueStore.claim;
// Postgres says the same in SQL, postgres/queue.ts): classes by priority, lowest first; within a
// class the workspaces take turns, each one's jobs in the order they came. Kept per class and
// workspace, so a claim reads only as far as it takes: with a 100,000-copy broadcast queued, a
// claim used to read all of its 5,000 jobs each time (11 % of the daemon's thread in a profile).

export interface Queued {
  id: string;
  workspace_id: string;
  priority?: number;
}

export class FairQueue<J extends Queued> {
  readonly #byId = new Map<string, J>();
  /** priority → workspace → its jobs in the order they came. */
  readonly #classes = new Map<number, Map<string, Map<string, J>>>();

  get size(): number {
    return this.#byId.size;
  }

  get(id: string): J | undefined {
    return this.#byId.get(id);
  }

  has(id: string): boolean {
    return this.#byId.has(id);
  }

  set(j: J): void {
    this.delete(j.id);
    this.#byId.set(j.id, j);
    const p = j.priority ?? 0;
    let spaces = this.#classes.get(p);
    if (!spaces) this.#classes.set(p, (spaces = new Map()));
    let mine = spaces.get(j.workspace_id);
    if (!mine) spaces.set(j.workspace_id, (mine = new Map()));
    mine.set(j.id, j);
  }

  delete(id: string): void {
    const j = this.#byId.get(id);
    if (!j) return;
    this.#byId.delete(id);
    const p = j.priority ?? 0;
    const spaces = this.#classes.get(p)!;
    const mine = spaces.get(j.workspace_id)!;
    mine.delete(id);
    if (!mine.size) spaces.delete(j.workspace_id);
    if (!spaces.size) this.#classes.delete(p);
  }

  /** A workspace's jobs, every class. */
  ofWorkspace(workspaceId: string): J[] {
    return [...this.#classes.values()].flatMap((spaces) => [...(spaces.get(workspaceId)?.values() ?? [])]);
  }

  values(): IterableIterator<J> {
    return this.#byId.values();
  }

  /**
   * Up to `max` jobs that `ok` takes (due and free), a class at a time and one job per workspace
   * per turn, at most `maxBulk` of the bulk classes (priority above 0) together.
   */
  pick(max: number, maxBulk: number, ok: (j: J) => boolean): J[] {
    const out: J[] = [];
    let bulk = 0;
    for (const p of [...this.#classes.keys()].sort((a, b) => a - b)) {
      const cap = Math.min(max - out.length, p > 0 ? maxBulk - bulk : Infinity);
      if (cap <= 0) {
        if (out.length >= max) break;
        continue;
      }
      let turn = [...this.#classes.get(p)!.values()].map((jobs) => jobs.values());
      let taken = 0;
      while (taken < cap && turn.length) {
        const next: Array<IterableIterator<J>> = [];
        for (const it of turn) {
          if (taken >= cap) break;
          let r = it.next();
          while (!r.done && !ok(r.value)) r = it.next();
          if (r.done) continue;
          out.push(r.value);
          taken++;
          next.push(it);
        }
        turn = next;
      }
      if (p > 0) bulk += taken;
    }
    return out;
  }
}

// File store: the order a fair queue claim takes jobs in (QueueStore.claim; Postgres says
// the same in SQL, postgres/queue.ts): classes by priority, lowest first; within a class the
// workspaces take turns, each one's jobs in the order they came (due first).

/**
 * Up to `max` of `jobs` (due and free, in the order they are due), a class at a time and one job
 * per workspace per turn, at most `maxBulk` of a bulk class (priority above 0). Reads each
 * workspace's first `max` jobs at most.
 */
export function fairPick<J extends { workspace_id: string; priority?: number }>(jobs: Iterable<J>, max: number, maxBulk = max): J[] {
  const classes = new Map<number, Map<string, J[]>>();
  for (const j of jobs) {
    const p = j.priority ?? 0;
    let spaces = classes.get(p);
    if (!spaces) classes.set(p, (spaces = new Map()));
    let mine = spaces.get(j.workspace_id);
    if (!mine) spaces.set(j.workspace_id, (mine = []));
    if (mine.length < max) mine.push(j);
  }
  const out: J[] = [];
  let bulk = 0;
  for (const p of [...classes.keys()].sort((a, b) => a - b)) {
    const queues = [...classes.get(p)!.values()];
    const full = () => out.length >= max || (p > 0 && bulk >= maxBulk);
    for (let turn = 0; !full() && queues.some((q) => q.length > turn); turn++) {
      for (const q of queues) {
        if (full()) break;
        if (q.length > turn) {
          out.push(q[turn]!);
          if (p > 0) bulk++;
        }
      }
    }
    if (out.length >= max) break;
  }
  return out;
}

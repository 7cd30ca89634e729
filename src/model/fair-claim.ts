// The outbound queue's fair claim (QueueStore.claim): classes by priority, lowest first
// (transactional before bulk); within a class the workspaces take turns, one job each per turn,
// each workspace's jobs in the order they are due; at most `maxBulk` of the bulk classes together,
// so that slots stay free for transactional mail arriving meanwhile. Every store gives this the
// first due and free jobs of each class and workspace (a claim never reads a whole broadcast).

export interface ClaimGroup<J> {
  priority: number;
  /** This class and workspace's claimable jobs, in the order they are due. */
  jobs: readonly J[];
}

/**
 * Up to `max` jobs in the order a fair claim takes them; within a turn the workspaces' jobs go in
 * `due` order (the earlier due first).
 */
export function fairPick<J>(groups: ReadonlyArray<ClaimGroup<J>>, max: number, maxBulk: number, due: (a: J, b: J) => number): J[] {
  const out: J[] = [];
  let bulk = 0;
  const classes = [...new Set(groups.map((g) => g.priority))].sort((a, b) => a - b);
  for (const p of classes) {
    const cap = Math.min(max - out.length, p > 0 ? maxBulk - bulk : Infinity);
    if (cap <= 0) {
      if (out.length >= max) break;
      continue;
    }
    const turns = groups.filter((g) => g.priority === p).map((g) => g.jobs);
    let taken = 0;
    for (let turn = 0; taken < cap; turn++) {
      const these = turns.flatMap((jobs) => (turn < jobs.length ? [jobs[turn]!] : [])).sort(due);
      if (!these.length) break;
      for (const j of these.slice(0, cap - taken)) out.push(j);
      taken += Math.min(these.length, cap - taken);
    }
    if (p > 0) bulk += taken;
  }
  return out;
}

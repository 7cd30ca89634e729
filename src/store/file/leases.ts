// The leases of a file-store queue (outbound jobs, webhook jobs), in memory: one daemon owns a
// file store, so its clock is the only one. A lease ends by itself when its owner stops renewing
// it; an attempt's outcome releases it.
export class Leases {
  #held = new Map<string, { owner: string; until: number }>();

  /** Whether job `id` is free at `t` (never leased, released, or its lease ran out). */
  free(id: string, t: number): boolean {
    return (this.#held.get(id)?.until ?? 0) <= t;
  }

  take(id: string, owner: string, t: number, ms: number): void {
    this.#held.set(id, { owner, until: t + ms });
  }

  /** Extends the leases `owner` still holds on `ids`. */
  renew(owner: string, ids: readonly string[], t: number, ms: number): void {
    for (const id of ids) {
      const lease = this.#held.get(id);
      if (lease?.owner === owner) lease.until = t + ms;
    }
  }

  release(id: string): void {
    this.#held.delete(id);
  }
}

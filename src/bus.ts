// A small publish/subscribe bus in the process: parts of the service say that work arrived (a send
// queued jobs, an outcome wrote events) and the workers that take such work wake at once instead
// of at their next poll. Built with the service, so no part is wired in after the fact.
// Across processes (LISTEN/NOTIFY on Postgres, the admin socket on the file store) it is not yet
// carried: other daemons still find new work by polling.

export type Topic = 'queued' | 'outboxed';

export class Bus {
  #subscribers = new Map<Topic, Set<() => void>>();

  publish(topic: Topic): void {
    for (const fn of this.#subscribers.get(topic) ?? []) fn();
  }

  /** Returns the unsubscribe. */
  subscribe(topic: Topic, fn: () => void): () => void {
    let set = this.#subscribers.get(topic);
    if (!set) this.#subscribers.set(topic, (set = new Set()));
    set.add(fn);
    return () => set.delete(fn);
  }
}

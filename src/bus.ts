// src/: the service (service.ts builds it from deps.ts), one folder per capability, the store
// beneath them and the model at the bottom.
//
// A small publish/subscribe bus: parts of the service say that work arrived (a send queued jobs, an
// outcome wrote events, attempts were recorded) and whoever takes such work wakes at once instead
// of at its next poll. Built with the service, so no part is wired in after the fact.
//
// Connected to the store's announcements (StoreEvents) when the store has them, the bus reaches the
// other processes on the same store: LISTEN/NOTIFY between daemons and commands on one Postgres,
// and the admin socket between a daemon and the commands run beside it on a file store. What
// arrives from elsewhere is delivered here and never sent back out.
import type { Topic } from './model/topic.js';
import type { StoreEvents } from './store/port/events.js';

export type { Topic } from './model/topic.js';

type Listener = (topic: Topic) => void;

export class Bus {
  #subscribers = new Map<Topic, Set<() => void>>();
  #any = new Set<Listener>();
  #remote: StoreEvents | null = null;
  #pending = new Set<Topic>();
  #disconnect: (() => void) | null = null;

  /** Here and, when connected, in the other processes (one announcement per topic per tick). */
  publish(topic: Topic): void {
    this.#deliver(topic);
    if (!this.#remote || this.#pending.has(topic)) return;
    this.#pending.add(topic);
    queueMicrotask(() => {
      this.#pending.delete(topic);
      this.#remote?.announce(topic);
    });
  }

  /** Returns the unsubscribe. */
  subscribe(topic: Topic, fn: () => void): () => void {
    let set = this.#subscribers.get(topic);
    if (!set) this.#subscribers.set(topic, (set = new Set()));
    set.add(fn);
    return () => set.delete(fn);
  }

  /** Every topic (the admin socket streams them to commands). Returns the unsubscribe. */
  subscribeAny(fn: Listener): () => void {
    this.#any.add(fn);
    return () => this.#any.delete(fn);
  }

  /** Resolves at the next `topic`, or after `ms`, or when `signal` aborts. */
  next(topic: Topic, ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        off();
        signal?.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      const off = this.subscribe(topic, done);
      signal?.addEventListener('abort', done);
    });
  }

  /**
   * Carries what is published here to the other processes on the store, and with `hear` what they
   * announce back here (a daemon, a live view; a one-shot command only tells).
   */
  connect(events: StoreEvents, opts: { hear: boolean }): void {
    this.#disconnect?.();
    this.#disconnect = null;
    this.#remote = events;
    if (opts.hear) this.#disconnect = events.listen((t) => this.#deliver(t));
  }

  close(): void {
    this.#disconnect?.();
    this.#disconnect = null;
    this.#remote = null;
  }

  #deliver(topic: Topic): void {
    for (const fn of this.#subscribers.get(topic) ?? []) fn();
    for (const fn of this.#any) fn(topic);
  }
}

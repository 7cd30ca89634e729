// Work announcements between the processes that share a store. Best effort: a lost announcement
// costs a poll interval, never work (every worker also polls).
import type { Topic } from '../../model/topic.js';

export interface StoreEvents {
  /** Tells the other processes; never fails the caller. */
  announce(topic: Topic): void;
  /** Topics the other processes announced; returns the unsubscribe. */
  listen(fn: (topic: Topic) => void): () => void;
}

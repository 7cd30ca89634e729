// File store: the contents of sends read back lately (messages.ts keeps a queued send's content on
// disk, where its accept line lies). A broadcast's fan-out batch is one accept line of 500 copies
// whose 25 jobs share one content: without this, each job read and parsed the whole line again
// (8 % of the daemon's thread in a profile of a hand-off). Reads in flight are shared too. Small
// and bounded: a few contents, none with attachments or larger than CACHED_MAX.
import type { SendContent } from '../../model/message.js';

const ENTRIES = 16;
const CACHED_MAX = 256 * 1024;

export class ContentCache {
  readonly #recent = new Map<string, Promise<SendContent | null>>();

  /** The content `id`, from the cache or read; `copy` gives each caller its own. */
  async get(id: string, read: () => Promise<SendContent | null>, copy: (c: SendContent) => SendContent): Promise<SendContent | null> {
    let p = this.#recent.get(id);
    if (p) {
      // The newest last: the oldest goes first when the cache is full.
      this.#recent.delete(id);
      this.#recent.set(id, p);
    } else {
      p = read();
      this.#recent.set(id, p);
      if (this.#recent.size > ENTRIES) this.#recent.delete(this.#recent.keys().next().value!);
      p.then(
        (c) => {
          if (!c || c.attachments?.length || (c.html?.length ?? 0) + (c.text?.length ?? 0) + (c.raw?.length ?? 0) > CACHED_MAX)
            this.forget(id, p!);
        },
        () => this.forget(id, p!),
      );
    }
    const c = await p;
    return c && copy(c);
  }

  /** Drops `id` (its jobs are done), or only the read `p` when given (a read that failed or is not kept). */
  forget(id: string, p?: Promise<SendContent | null>): void {
    if (!p || this.#recent.get(id) === p) this.#recent.delete(id);
  }
}

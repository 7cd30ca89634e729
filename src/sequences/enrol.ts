// Enrolment (spec.md: "Enrolment in a sequence happens when a subscriber becomes active on the
// sequence's list"): a subscriber posted active, confirmed (double opt-in) or imported is enrolled
// in every active sequence of its list, once. Its first step is due `delay_hours` after this; the
// scheduler (scheduler.ts) looks at it at once and works out when.
import type { DepsOf } from '../deps.js';
import type { Subscriber } from '../model/list.js';
import type { Enrolment } from '../model/sequence.js';

/** Subscribers read (and enrolled) per store call after an import. */
const ENROL_BATCH = 1000;

export function enroller({ store, clock, random, bus }: DepsOf<'sequences' | 'subscribers'>) {
  async function enrol(workspaceId: string, listId: string, subs: Array<Pick<Subscriber, 'id'>>, sequenceIds: string[]): Promise<number> {
    const at = clock.now().toISOString();
    const rows: Enrolment[] = sequenceIds.flatMap((sequence_id) =>
      subs.map((s) => ({
        id: random.uuid(),
        workspace_id: workspaceId,
        sequence_id,
        list_id: listId,
        subscriber_id: s.id,
        status: 'active' as const,
        position: -1,
        last_at: at,
        due_at: at,
        reason: null,
        created_at: at,
      })),
    );
    const n = rows.length ? await store.sequences.enrol(rows) : 0;
    if (n) bus?.publish('enrolled');
    return n;
  }

  return {
    /** These subscribers just became active on the list. */
    async active(workspaceId: string, listId: string, subs: Subscriber[]): Promise<number> {
      const active = subs.filter((s) => s.status === 'active');
      if (!active.length) return 0;
      const seqs = await store.sequences.ofList(workspaceId, listId);
      return seqs.length
        ? enrol(
            workspaceId,
            listId,
            active,
            seqs.map((s) => s.id),
          )
        : 0;
    },
    /** Every subscriber added to the list after position `after` (an import) that is active. */
    async since(workspaceId: string, listId: string, after: number): Promise<number> {
      const seqs = (await store.sequences.ofList(workspaceId, listId)).map((s) => s.id);
      if (!seqs.length) return 0;
      let n = 0;
      for (let cursor = after; ;) {
        const page = await store.subscribers.activeAfter(workspaceId, listId, cursor, ENROL_BATCH);
        n += await enrol(workspaceId, listId, page.data, seqs);
        if (page.done) return n;
        cursor = page.cursor;
      }
    },
  };
}

export type Enroller = ReturnType<typeof enroller>;

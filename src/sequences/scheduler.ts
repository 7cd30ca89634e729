// The scheduler's work on sequences: each due enrolment (claimed under a lease) gets its next step
// (the step with the lowest position above the one it passed; a deleted step is simply not there),
// once `delay_hours` have passed since its last step (or its enrolment). The step goes through the
// one pipeline as list mail (source sequence; only {{email}} and {{unsubscribe_url}} are filled),
// and the enrolment's move is stored with its record, so a step goes out once whatever crashes and
// however many daemons share the store. Not yet due: the enrolment is told when. Nothing left: it
// waits (a step added later wakes it). An unsubscribed or removed subscriber stops it; a suppressed
// one has the step skipped, the reason kept. The clock is injected: tests move it.
import type { DepsOf } from '../deps.js';
import { isSvcError } from '../errors.js';
import { copySubscriber } from '../model/list.js';
import type { Enrolment, EnrolmentStep, SequenceStep } from '../model/sequence.js';
import type { Workspace } from '../model/workspace.js';
import type { Send } from '../model/send.js';

/** Enrolments claimed per pass. */
const CLAIM = 200;
/** How long a claimed enrolment is this scheduler's (a crashed one's come back after it). */
export const ENROLMENT_LEASE_MS = 60_000;
/** When a step could not go (no sender, over quota): looked at again after this. */
const RETRY_MS = 3600_000;

export function sequenceScheduler(deps: DepsOf<'sequences' | 'subscribers' | 'lists' | 'suppressions' | 'workspaces'>, send: Send) {
  const { store, clock, log } = deps;

  async function step(e: Enrolment, ws: Workspace, steps: SequenceStep[]): Promise<'sent' | 'waiting' | 'skipped' | 'stopped' | 'moved'> {
    const at = clock.now();
    const move = (m: Omit<EnrolmentStep, 'id' | 'from'>) => store.sequences.advance({ id: e.id, from: e.position, ...m });
    const next = steps.find((s) => s.position > e.position);
    if (!next) return (await move({ position: e.position, last_at: e.last_at, due_at: null, reason: e.reason })) ? 'waiting' : 'moved';
    const due = Date.parse(e.last_at) + next.delay_hours * 3600_000;
    if (due > at.getTime())
      return (await move({ position: e.position, last_at: e.last_at, due_at: new Date(due).toISOString(), reason: e.reason }))
        ? 'waiting'
        : 'moved';
    const sub = await store.subscribers.get(ws.id, e.list_id, e.subscriber_id);
    if (!sub || sub.status === 'unsubscribed') {
      await store.sequences.stop(ws.id, e.subscriber_id, sub ? 'unsubscribed' : 'the subscriber was removed', at.toISOString());
      return 'stopped';
    }
    const now = at.toISOString();
    const [suppressed] = await store.suppressions.find(ws.id, [sub.email]);
    if (suppressed) {
      const reason = `step ${next.position} skipped: ${sub.email} is on the suppression list (${suppressed.reason}, since ${suppressed.created_at})`;
      return (await move({ position: next.position, last_at: now, due_at: now, reason })) ? 'skipped' : 'moved';
    }
    const list = await store.lists.get(ws.id, e.list_id);
    if (!list?.from_address) {
      const reason = `step ${next.position} waits: the list has no from_address`;
      await move({ position: e.position, last_at: e.last_at, due_at: new Date(at.getTime() + RETRY_MS).toISOString(), reason });
      return 'waiting';
    }
    try {
      await send(
        ws,
        {
          from: { name: list.from_name || null, address: list.from_address },
          to: [{ name: null, address: sub.email }],
          cc: [],
          bcc: [],
          subject: next.subject,
          html: next.body_html || null,
          // A step with neither body goes with an empty text one (and its unsubscribe line).
          text: next.body_text || (next.body_html ? null : ''),
        },
        {
          source: 'sequence',
          list: {
            subscribers: new Map([[sub.email, copySubscriber(sub)]]),
            // Looked at again at once: the next step's delay counts from now.
            enrolment: { id: e.id, from: e.position, position: next.position, last_at: now, due_at: now, reason: null },
          },
        },
      );
      return 'sent';
    } catch (err) {
      if (isSvcError(err) && err.kind === 'conflict') return 'moved';
      const reason = `step ${next.position} could not be sent: ${(err as Error).message}`;
      log.warn(`sequence enrolment ${e.id}: ${reason}; tried again in an hour`);
      await move({ position: e.position, last_at: e.last_at, due_at: new Date(at.getTime() + RETRY_MS).toISOString(), reason });
      return 'waiting';
    }
  }

  /** Workspaces by id, read again at most every few seconds (plans change rarely). */
  let workspaces: { at: number; byId: Map<string, Workspace> } | null = null;
  const workspace = async (id: string): Promise<Workspace | undefined> => {
    if (!workspaces || Date.now() - workspaces.at > 5_000 || !workspaces.byId.has(id))
      workspaces = { at: Date.now(), byId: new Map((await store.workspaces.list()).map((w) => [w.id, w])) };
    return workspaces.byId.get(id);
  };

  /** One claimed enrolment: its next step sent, skipped, or its next look set. */
  async function run(e: Enrolment) {
    const ws = await workspace(e.workspace_id);
    if (!ws) return 'stopped' as const;
    return step(e, ws, await store.sequences.steps(ws.id, e.sequence_id));
  }

  return {
    claim: (owner: string, max: number) => store.sequences.claimDue(owner, clock.now().toISOString(), ENROLMENT_LEASE_MS, max),
    run,
    /** One pass over everything due now (tests move the clock, then call it); what happened. */
    async runOnce(owner: string): Promise<{ sent: number; skipped: number; stopped: number; claimed: number }> {
      const out = { sent: 0, skipped: 0, stopped: 0, claimed: 0 };
      for (;;) {
        const due = await store.sequences.claimDue(owner, clock.now().toISOString(), ENROLMENT_LEASE_MS, CLAIM);
        if (!due.length) return out;
        out.claimed += due.length;
        for (const e of due) {
          const r = await run(e);
          if (r === 'sent') out.sent++;
          else if (r === 'skipped') out.skipped++;
          else if (r === 'stopped') out.stopped++;
        }
      }
    },
  };
}

export type SequenceScheduler = ReturnType<typeof sequenceScheduler>;

// File store: sequences, their steps and enrolments, in a journal of their own (sequences/all.jsonl;
// they outlive the mail journal's days), held in memory. A step's send moves its enrolment on in
// the accept line of its message record (mail journal: the two are one write); the `enrol_step`
// line written after it keeps the move once that day of the mail journal is gone. Positions only
// grow, so the two are merged by taking the larger. Leases are in memory: one daemon owns the store.
import { SvcError } from '../../errors.js';
import type { Enrolment, EnrolmentStep, Sequence, SequenceStep, SequenceWithCount } from '../../model/sequence.js';
import type { MessageStore } from '../port/messages.js';
import type { SequenceStore } from '../port/sequences.js';
import type { Journal } from './journal.js';
import { Leases } from './leases.js';
import type { Line, Replay } from './replay.js';
import { shape } from './shapes.js';

interface SeqLine extends Line {
  t: 'seq';
  s: Sequence;
}
interface SeqGoneLine extends Line {
  t: 'seq_gone';
  id: string;
}
interface StepLine extends Line {
  t: 'step';
  step: SequenceStep;
}
interface StepGoneLine extends Line {
  t: 'step_gone';
  id: string;
  sequence_id: string;
}
interface EnrolLine extends Line {
  t: 'enrol';
  e: Enrolment[];
}
interface EnrolStepLine extends Line, EnrolmentStep {
  t: 'enrol_step';
}
interface EnrolStopLine extends Line {
  t: 'enrol_stop';
  workspace_id: string;
  subscriber_id: string;
  reason: string;
}

export function sequenceLines(r: Replay): void {
  r.kind('seq', shape({ at: 's', s: 'o' }))
    .kind('seq_gone', shape({ at: 's', id: 's' }))
    .kind('step', shape({ at: 's', step: 'o' }))
    .kind('step_gone', shape({ at: 's', id: 's', sequence_id: 's' }))
    .kind('enrol', shape({ at: 's', e: 'a' }))
    .kind('enrol_step', shape({ at: 's', id: 's', position: 'n', last_at: 's' }))
    .kind('enrol_stop', shape({ at: 's', workspace_id: 's', subscriber_id: 's', reason: 's' }));
}

const PARTITION = 'all';
const copyEnrolment = (e: Enrolment): Enrolment => ({ ...e });

export function fileSequences(
  log: Journal<Line>,
  replay: Replay,
  mail: Replay,
  now: () => Date,
): { store: SequenceStore; keepSteps(accept: MessageStore['accept']): MessageStore['accept'] } {
  const sequences = new Map<string, Sequence>();
  const steps = new Map<string, SequenceStep>();
  const enrolments = new Map<string, Enrolment>();
  /** sequence id + subscriber id → enrolment (one each). */
  const bySubscriber = new Map<string, Enrolment>();
  /** workspace id + subscriber id → the subscriber's enrolments (an unsubscribe stops them all without reading every enrolment). */
  const ofSubscriber = new Map<string, Enrolment[]>();
  const subscriberKey = (workspaceId: string, subscriberId: string) => `${workspaceId} ${subscriberId}`;
  const leases = new Leases();
  sequenceLines(replay);

  const stepsOf = (sequenceId: string) =>
    [...steps.values()].filter((s) => s.sequence_id === sequenceId).sort((a, b) => a.position - b.position);
  const counted = (s: Sequence): SequenceWithCount => ({ ...s, step_count: stepsOf(s.id).length });
  const moveOn = (m: EnrolmentStep) => {
    const e = enrolments.get(m.id);
    if (!e || m.position < e.position || (m.position === e.position && m.last_at <= e.last_at && m.due_at === e.due_at)) return;
    Object.assign(e, { position: m.position, last_at: m.last_at, due_at: m.due_at, reason: m.reason });
  };
  replay.on<SeqLine>('seq', (l) => sequences.set(l.s.id, { ...l.s }));
  replay.on<SeqGoneLine>('seq_gone', (l) => {
    sequences.delete(l.id);
    for (const s of stepsOf(l.id)) steps.delete(s.id);
    for (const e of enrolments.values())
      if (e.sequence_id === l.id && e.status === 'active')
        Object.assign(e, { status: 'stopped', due_at: null, reason: 'the sequence was removed' });
  });
  replay.on<StepLine>('step', (l) => {
    steps.set(l.step.id, { ...l.step });
    // The new step may be next for anyone: each active enrolment is looked at again.
    for (const e of enrolments.values())
      if (e.sequence_id === l.step.sequence_id && e.status === 'active' && e.position < l.step.position) e.due_at = e.last_at;
  });
  replay.on<StepGoneLine>('step_gone', (l) => void steps.delete(l.id));
  replay.on<EnrolLine>('enrol', (l) => {
    for (const e of l.e) {
      const k = `${e.sequence_id} ${e.subscriber_id}`;
      if (bySubscriber.has(k)) continue;
      const kept = copyEnrolment(e);
      enrolments.set(e.id, kept);
      bySubscriber.set(k, kept);
      const sk = subscriberKey(e.workspace_id, e.subscriber_id);
      const all = ofSubscriber.get(sk);
      if (all) all.push(kept);
      else ofSubscriber.set(sk, [kept]);
    }
  });
  replay.on<EnrolStepLine>('enrol_step', (l) => moveOn(l));
  replay.on<EnrolStopLine>('enrol_stop', (l) => {
    for (const e of ofSubscriber.get(subscriberKey(l.workspace_id, l.subscriber_id)) ?? []) {
      if (e.status === 'active') Object.assign(e, { status: 'stopped', due_at: null, reason: l.reason });
    }
  });
  mail.on<Line & { enrolment?: EnrolmentStep }>('accept', (l) => {
    if (l.enrolment) moveOn(l.enrolment);
  });

  const write = async (line: Line): Promise<void> => {
    await log.append(PARTITION, [line]);
    replay.apply(line);
  };
  const at = () => now().toISOString();
  const own = (workspaceId: string, id: string) => {
    const s = sequences.get(id);
    return s && s.workspace_id === workspaceId ? s : null;
  };

  const store: SequenceStore = {
    create: async (s) => {
      await write({ t: 'seq', at: s.created_at, s: { ...s } } as SeqLine);
      return counted(s);
    },
    list: async (workspaceId) => [...sequences.values()].filter((s) => s.workspace_id === workspaceId).map(counted),
    get: async (workspaceId, id) => {
      const s = own(workspaceId, id);
      return s ? counted(s) : null;
    },
    ofList: async (workspaceId, listId) =>
      [...sequences.values()].filter((s) => s.workspace_id === workspaceId && s.list_id === listId && s.active).map((s) => ({ ...s })),
    remove: async (workspaceId, id) => {
      if (!own(workspaceId, id)) return false;
      await write({ t: 'seq_gone', at: at(), id } as SeqGoneLine);
      return true;
    },
    addStep: async (step) => {
      if (!own(step.workspace_id, step.sequence_id)) throw new SvcError('not_found', 'sequence not found');
      if (stepsOf(step.sequence_id).some((s) => s.position === step.position))
        throw new SvcError('conflict', `the sequence has a step at position ${step.position} already`);
      await write({ t: 'step', at: step.created_at, step: { ...step } } as StepLine);
      return { ...step };
    },
    steps: async (workspaceId, sequenceId) => (own(workspaceId, sequenceId) ? stepsOf(sequenceId).map((s) => ({ ...s })) : []),
    removeStep: async (workspaceId, sequenceId, stepId) => {
      const s = steps.get(stepId);
      if (!own(workspaceId, sequenceId) || !s || s.sequence_id !== sequenceId) return false;
      await write({ t: 'step_gone', at: at(), id: stepId, sequence_id: sequenceId } as StepGoneLine);
      return true;
    },
    enrol: async (list) => {
      // One per sequence and subscriber: not already enrolled, nor earlier in this list.
      const seen = new Set<string>();
      const fresh = list.filter((e) => {
        const k = `${e.sequence_id} ${e.subscriber_id}`;
        if (bySubscriber.has(k) || seen.has(k)) return false;
        seen.add(k);
        return true;
      });
      if (fresh.length) await write({ t: 'enrol', at: at(), e: fresh.map(copyEnrolment) } as EnrolLine);
      return fresh.length;
    },
    enrolments: async (workspaceId, sequenceId) =>
      [...enrolments.values()].filter((e) => e.workspace_id === workspaceId && e.sequence_id === sequenceId).map(copyEnrolment),
    claimDue: async (owner, nowIso, leaseMs, max) => {
      const t = Date.parse(nowIso);
      const out: Enrolment[] = [];
      for (const e of enrolments.values()) {
        if (out.length >= max) break;
        if (e.status !== 'active' || e.due_at === null || Date.parse(e.due_at) > t || !leases.free(e.id, t)) continue;
        leases.take(e.id, owner, t, leaseMs);
        out.push(copyEnrolment(e));
      }
      return out;
    },
    advance: async (m) => {
      const e = enrolments.get(m.id);
      leases.release(m.id);
      if (!e || e.position !== m.from || e.status !== 'active') return false;
      await write({ t: 'enrol_step', at: at(), ...m } as EnrolStepLine);
      return true;
    },
    stop: async (workspaceId, subscriberId, reason, when) => {
      const n = (ofSubscriber.get(subscriberKey(workspaceId, subscriberId)) ?? []).filter((e) => e.status === 'active').length;
      if (n) await write({ t: 'enrol_stop', at: when, workspace_id: workspaceId, subscriber_id: subscriberId, reason } as EnrolStopLine);
      return n;
    },
  };

  return {
    store,
    // A step's send: stored only while its enrolment is where it was read (one at a time per
    // enrolment: its lease), then kept in this journal too.
    keepSteps: (accept) => async (batch) => {
      const m = batch.enrolment;
      if (!m) return accept(batch);
      const e = enrolments.get(m.id);
      if (!e || e.position !== m.from || e.status !== 'active') return { refused: 'enrolment_moved' };
      const refused = await accept(batch);
      leases.release(m.id);
      if (refused) return refused;
      await log.append(PARTITION, [{ t: 'enrol_step', at: at(), ...m } as EnrolStepLine]);
      return null;
    },
  };
}

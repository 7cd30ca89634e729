// src/sequences/: timed sequences and their steps (spec.md "Sequences and steps"): every endpoint and
// field. A sequence belongs to a list (whose new active subscribers are enrolled: enrol.ts); its
// trigger is `subscribe` (the only value and the default); it is active on creation; removing it
// removes its steps and stops its enrolments. Steps are ordered by position (from 0, one step per
// position); delay_hours is counted from the previous step's send (from enrolment for the first).
import type { DepsOf } from '../deps.js';
import { SvcError } from '../errors.js';
import type { SequenceStep, SequenceWithCount } from '../model/sequence.js';
import type { Workspace } from '../model/workspace.js';
import { bodyText, invalidBody, objectBody, text } from '../request.js';
import { assertWritable } from '../workspaces/trial.js';

/** A step's subject is one header line. */
const MAX_SUBJECT = 998;
/** A year: a longer delay is a mistake, not a plan. */
const MAX_DELAY_HOURS = 24 * 366;

export const sequenceView = (s: SequenceWithCount) => ({
  id: s.id,
  list_id: s.list_id,
  name: s.name,
  trigger: s.trigger,
  active: s.active,
  step_count: s.step_count,
  created_at: s.created_at,
  updated_at: s.updated_at,
});

export const stepView = (s: SequenceStep) => ({
  id: s.id,
  sequence_id: s.sequence_id,
  position: s.position,
  delay_hours: s.delay_hours,
  subject: s.subject,
  body_html: s.body_html,
  body_text: s.body_text,
  created_at: s.created_at,
});

const wholeNumber = (b: Record<string, unknown>, field: string, max: number): number => {
  const v = b[field];
  if (v === undefined || v === null) throw new SvcError('invalid_request', `${field} is required`);
  if (typeof v !== 'number') throw invalidBody(`${field} must be an integer`);
  if (!Number.isInteger(v) || v < 0 || v > max) throw new SvcError('invalid_request', `${field} must be a whole number from 0 to ${max}`);
  return v;
};

const body = (b: Record<string, unknown>, field: string): string => bodyText(b, field) ?? '';

/** A sequence's request, checked for shape: a name, a list id, the trigger. */
export function sequenceInput(input: unknown) {
  const b = objectBody(input);
  const name = text(b, 'name')?.trim();
  if (!name) throw new SvcError('invalid_request', 'name is required');
  const listId = text(b, 'list_id')?.trim();
  if (!listId) throw new SvcError('invalid_request', 'list_id is required');
  const trigger = text(b, 'trigger') ?? 'subscribe';
  if (trigger !== 'subscribe') throw new SvcError('invalid_request', "trigger must be 'subscribe' (the only trigger)");
  return { name, listId, trigger: 'subscribe' as const };
}

/**
 * A step's request, checked for shape: a subject (one line), its position and delay; its bodies
 * are optional (spec.md requires only subject, position and delay_hours: a step with neither is
 * sent with an empty text body).
 */
export function stepInput(input: unknown) {
  const b = objectBody(input);
  const subject = body(b, 'subject');
  if (!subject.trim()) throw new SvcError('invalid_request', 'subject is required');
  if (subject.length > MAX_SUBJECT || /[\r\n]/.test(subject))
    throw new SvcError('invalid_request', `subject must be one line of at most ${MAX_SUBJECT} characters`);
  const position = wholeNumber(b, 'position', 10_000);
  const delay = wholeNumber(b, 'delay_hours', MAX_DELAY_HOURS);
  const html = body(b, 'body_html');
  const textBody = body(b, 'body_text');
  return { subject, position, delay, html, textBody };
}

export function sequenceService({ store, clock, random, bus }: DepsOf<'sequences' | 'lists'>) {
  const now = () => clock.now().toISOString();
  async function sequence(ws: Workspace, id: string): Promise<SequenceWithCount> {
    const s = await store.sequences.get(ws.id, id);
    if (!s) throw new SvcError('not_found', 'sequence not found');
    return s;
  }

  return {
    async list(ws: Workspace) {
      return (await store.sequences.list(ws.id)).map(sequenceView);
    },
    async get(ws: Workspace, id: string) {
      return sequenceView(await sequence(ws, id));
    },
    /** POST /sequences: 201. Subscribers active before it are not enrolled: only those who become active after. */
    async create(ws: Workspace, input: unknown) {
      assertWritable(ws, clock.now());
      const { name, listId, trigger } = sequenceInput(input);
      if (!(await store.lists.get(ws.id, listId))) throw new SvcError('not_found', 'list not found');
      const at = now();
      return sequenceView(
        await store.sequences.create({
          id: random.uuid(),
          workspace_id: ws.id,
          list_id: listId,
          name,
          trigger,
          active: true,
          created_at: at,
          updated_at: at,
        }),
      );
    },
    async remove(ws: Workspace, id: string) {
      if (!(await store.sequences.remove(ws.id, id))) throw new SvcError('not_found', 'sequence not found');
    },
    async steps(ws: Workspace, id: string) {
      await sequence(ws, id);
      return (await store.sequences.steps(ws.id, id)).map(stepView);
    },
    /** POST /sequences/:id/steps: 201. Applies to enrolled subscribers who have not passed its position. */
    async addStep(ws: Workspace, id: string, input: unknown) {
      assertWritable(ws, clock.now());
      const { subject, position, delay, html, textBody } = stepInput(input);
      await sequence(ws, id);
      const step = await store.sequences.addStep({
        id: random.uuid(),
        sequence_id: id,
        workspace_id: ws.id,
        position,
        delay_hours: delay,
        subject,
        body_html: html,
        body_text: textBody,
        created_at: now(),
      });
      bus?.publish('enrolled');
      return stepView(step);
    },
    async removeStep(ws: Workspace, id: string, stepId: string) {
      await sequence(ws, id);
      if (!(await store.sequences.removeStep(ws.id, id, stepId))) throw new SvcError('not_found', 'step not found');
    },
  };
}

export type SequenceService = ReturnType<typeof sequenceService>;

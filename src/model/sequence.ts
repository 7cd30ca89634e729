// Timed sequences (spec.md "Sequence", "Sequence step", "Enrolment in a sequence happens when a
// subscriber becomes active on the sequence's list") and the enrolments the scheduler works from.

export interface Sequence {
  id: string;
  workspace_id: string;
  list_id: string;
  name: string;
  /** `subscribe`: the only trigger. */
  trigger: 'subscribe';
  active: boolean;
  created_at: string;
  updated_at: string;
}

export type SequenceWithCount = Sequence & { step_count: number };

export interface SequenceStep {
  id: string;
  sequence_id: string;
  workspace_id: string;
  /** Order, from 0. */
  position: number;
  /** Hours after the previous step went out (after enrolment for the first). */
  delay_hours: number;
  subject: string;
  body_html: string;
  body_text: string;
  created_at: string;
}

/**
 * One subscriber in one sequence. `position`: the last step it has passed (sent or skipped), -1
 * before the first; `last_at`: when that happened (or when it was enrolled). `due_at`: when the
 * scheduler looks at it next (null: nothing left for now; a step added later wakes it). Stopped
 * (unsubscribed, or the sequence removed) it is never looked at again.
 */
export interface Enrolment {
  id: string;
  workspace_id: string;
  sequence_id: string;
  list_id: string;
  subscriber_id: string;
  status: 'active' | 'stopped';
  position: number;
  last_at: string;
  due_at: string | null;
  /** Why it stopped, or why its last step was skipped (a suppressed address); null otherwise. */
  reason: string | null;
  created_at: string;
}

/** What a step's send (or a skip) moves an enrolment to, stored only from the position read. */
export interface EnrolmentStep {
  id: string;
  /** The position it was at when read: refused (nothing stored) when it has moved since. */
  from: number;
  position: number;
  last_at: string;
  due_at: string | null;
  reason: string | null;
}

// The store's port: sequences, their steps and their enrolments. An enrolment is due work of the
// scheduler: claimed under a lease (two daemons never work on one at once), and a step's send moves
// it on in the same store write as the step's message record (AcceptBatch.enrolment), so each step
// goes out once.
import type { Enrolment, EnrolmentStep, Sequence, SequenceStep, SequenceWithCount } from '../../model/sequence.js';

export interface SequenceStore {
  create(s: Sequence): Promise<SequenceWithCount>;
  /** Oldest first. */
  list(workspaceId: string): Promise<SequenceWithCount[]>;
  get(workspaceId: string, id: string): Promise<SequenceWithCount | null>;
  /** Active sequences of a list (whose new subscribers are enrolled). */
  ofList(workspaceId: string, listId: string): Promise<Sequence[]>;
  /** Removes it with its steps; its enrolments stop. False when there is none. */
  remove(workspaceId: string, id: string): Promise<boolean>;
  /**
   * Adds a step; every active enrolment of the sequence is looked at again at once (the new step
   * may be next for it). Throws conflict when the position is taken.
   */
  addStep(step: SequenceStep): Promise<SequenceStep>;
  /** Ordered by position. */
  steps(workspaceId: string, sequenceId: string): Promise<SequenceStep[]>;
  /** Removes a step (enrolments then skip it); false when there is none. */
  removeStep(workspaceId: string, sequenceId: string, stepId: string): Promise<boolean>;
  /** Enrols these (one per sequence and subscriber: one already there is left as it is); how many were new. */
  enrol(enrolments: Enrolment[]): Promise<number>;
  /** A sequence's enrolments, oldest first. */
  enrolments(workspaceId: string, sequenceId: string): Promise<Enrolment[]>;
  /**
   * Up to `max` active enrolments due at `now`, leased to `owner` for leaseMs (the store's own
   * clock measures leases where several processes share it).
   */
  claimDue(owner: string, now: string, leaseMs: number, max: number): Promise<Enrolment[]>;
  /** Moves an enrolment on without a send (a skip, nothing left, a later due time); false when it had moved. Releases its lease. */
  advance(step: EnrolmentStep): Promise<boolean>;
  /** Stops every active enrolment of the subscriber (unsubscribed), with the reason. */
  stop(workspaceId: string, subscriberId: string, reason: string, at: string): Promise<number>;
}

// Postgres: sequences, steps and enrolments (migration 0024). Enrolments are claimed under a lease
// on the database's clock (FOR UPDATE SKIP LOCKED: daemons take different ones); a step's send
// moves its enrolment on in the accept statement (messages.ts), so each step goes out once.
import { SvcError } from '../../errors.js';
import type { Enrolment, Sequence, SequenceStep, SequenceWithCount } from '../../model/sequence.js';
import type { SequenceStore } from '../port/sequences.js';
import { iso, type PgDb } from './db.js';

const SEQ_COLS = 'id, workspace_id, list_id, name, trigger, active, created_at, updated_at';
const COUNTED = `SELECT ${SEQ_COLS.split(', ')
  .map((c) => `s.${c}`)
  .join(', ')}, (SELECT count(*) FROM sequence_steps t WHERE t.sequence_id = s.id) AS step_count FROM sequences s`;
const STEP_COLS = 'id, sequence_id, workspace_id, position, delay_hours, subject, body_html, body_text, created_at';
const ENROL_COLS = 'id, workspace_id, sequence_id, list_id, subscriber_id, status, position, last_at, due_at, reason, created_at';

type SeqRow = Omit<Sequence, 'created_at' | 'updated_at'> & { created_at: Date; updated_at: Date; step_count?: string };
type StepRow = Omit<SequenceStep, 'created_at'> & { created_at: Date };
type EnrolRow = Omit<Enrolment, 'last_at' | 'due_at' | 'created_at'> & { last_at: Date; due_at: Date | null; created_at: Date };

const toSequence = (r: SeqRow): SequenceWithCount => ({
  id: r.id,
  workspace_id: r.workspace_id,
  list_id: r.list_id,
  name: r.name,
  trigger: r.trigger,
  active: r.active,
  created_at: r.created_at.toISOString(),
  updated_at: r.updated_at.toISOString(),
  step_count: Number(r.step_count ?? 0),
});
const toStep = (r: StepRow): SequenceStep => ({ ...r, created_at: r.created_at.toISOString() });
const toEnrolment = (r: EnrolRow): Enrolment => ({
  ...r,
  last_at: r.last_at.toISOString(),
  due_at: iso(r.due_at),
  created_at: r.created_at.toISOString(),
});

export function pgSequences(db: PgDb): SequenceStore {
  return {
    create: async (s) => {
      await db.rows(`INSERT INTO sequences (${SEQ_COLS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`, [
        s.id,
        s.workspace_id,
        s.list_id,
        s.name,
        s.trigger,
        s.active,
        s.created_at,
        s.updated_at,
      ]);
      return { ...s, step_count: 0 };
    },
    list: async (workspaceId) =>
      (await db.rows<SeqRow>(`${COUNTED} WHERE s.workspace_id = $1 ORDER BY s.seq`, [workspaceId])).map(toSequence),
    get: async (workspaceId, id) => {
      const [r] = await db.rows<SeqRow>(`${COUNTED} WHERE s.workspace_id = $1 AND s.id = $2`, [workspaceId, id]);
      return r ? toSequence(r) : null;
    },
    ofList: async (workspaceId, listId) =>
      (
        await db.rows<SeqRow>(`SELECT ${SEQ_COLS} FROM sequences WHERE workspace_id = $1 AND list_id = $2 AND active ORDER BY seq`, [
          workspaceId,
          listId,
        ])
      ).map((r) => {
        const { step_count: _n, ...s } = toSequence(r);
        return s;
      }),
    remove: async (workspaceId, id) =>
      db.tx(async (c) => {
        const { rowCount } = await c.query(`DELETE FROM sequences WHERE workspace_id = $1 AND id = $2`, [workspaceId, id]);
        if (!rowCount) return false;
        await c.query(
          `UPDATE enrolments SET status = 'stopped', due_at = NULL, reason = 'the sequence was removed' WHERE sequence_id = $1 AND status = 'active'`,
          [id],
        );
        return true;
      }),
    addStep: async (step) =>
      db.tx(async (c) => {
        const { rows } = await c.query(`SELECT 1 FROM sequences WHERE workspace_id = $1 AND id = $2 FOR UPDATE`, [
          step.workspace_id,
          step.sequence_id,
        ]);
        if (!rows.length) throw new SvcError('not_found', 'sequence not found');
        const taken = await c.query(`SELECT 1 FROM sequence_steps WHERE sequence_id = $1 AND position = $2`, [
          step.sequence_id,
          step.position,
        ]);
        if (taken.rows.length) throw new SvcError('conflict', `the sequence has a step at position ${step.position} already`);
        await c.query(`INSERT INTO sequence_steps (${STEP_COLS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`, [
          step.id,
          step.sequence_id,
          step.workspace_id,
          step.position,
          step.delay_hours,
          step.subject,
          step.body_html,
          step.body_text,
          step.created_at,
        ]);
        // The new step may be next for anyone who has not passed its position: looked at again now.
        await c.query(`UPDATE enrolments SET due_at = last_at WHERE sequence_id = $1 AND status = 'active' AND position < $2`, [
          step.sequence_id,
          step.position,
        ]);
        return { ...step };
      }),
    steps: async (workspaceId, sequenceId) =>
      (
        await db.rows<StepRow>(`SELECT ${STEP_COLS} FROM sequence_steps WHERE workspace_id = $1 AND sequence_id = $2 ORDER BY position`, [
          workspaceId,
          sequenceId,
        ])
      ).map(toStep),
    removeStep: async (workspaceId, sequenceId, stepId) =>
      (
        await db.rows(`DELETE FROM sequence_steps WHERE workspace_id = $1 AND sequence_id = $2 AND id = $3 RETURNING id`, [
          workspaceId,
          sequenceId,
          stepId,
        ])
      ).length > 0,
    enrol: async (list) => {
      if (!list.length) return 0;
      const rows = await db.rows(
        `INSERT INTO enrolments (${ENROL_COLS})
         SELECT ${ENROL_COLS} FROM jsonb_to_recordset($1) AS e(id text, workspace_id text, sequence_id text, list_id text, subscriber_id text, status text, position int,
                last_at timestamptz, due_at timestamptz, reason text, created_at timestamptz)
         ON CONFLICT (sequence_id, subscriber_id) DO NOTHING RETURNING id`,
        [JSON.stringify(list)],
        'enrol',
      );
      return rows.length;
    },
    enrolments: async (workspaceId, sequenceId) =>
      (
        await db.rows<EnrolRow>(`SELECT ${ENROL_COLS} FROM enrolments WHERE workspace_id = $1 AND sequence_id = $2 ORDER BY seq`, [
          workspaceId,
          sequenceId,
        ])
      ).map(toEnrolment),
    claimDue: async (owner, now, leaseMs, max) =>
      (
        await db.rows<EnrolRow>(
          `UPDATE enrolments e SET lease_owner = $1, lease_until = now() + $3 * interval '1 millisecond'
            WHERE e.id IN (SELECT id FROM enrolments WHERE status = 'active' AND due_at IS NOT NULL AND due_at <= $2 AND (lease_until IS NULL OR lease_until <= now())
                           ORDER BY due_at LIMIT $4 FOR UPDATE SKIP LOCKED)
            RETURNING ${ENROL_COLS.split(', ')
              .map((c) => `e.${c}`)
              .join(', ')}`,
          [owner, now, leaseMs, max],
          'enrolments_claim',
        )
      ).map(toEnrolment),
    advance: async (m) =>
      (
        await db.rows(
          `UPDATE enrolments SET position = $3, last_at = $4, due_at = $5, reason = $6, lease_owner = NULL, lease_until = NULL WHERE id = $1 AND position = $2 AND status = 'active' RETURNING id`,
          [m.id, m.from, m.position, m.last_at, m.due_at, m.reason],
        )
      ).length > 0,
    stop: async (workspaceId, subscriberId, reason) =>
      (
        await db.rows(
          `UPDATE enrolments SET status = 'stopped', due_at = NULL, reason = $3 WHERE workspace_id = $1 AND subscriber_id = $2 AND status = 'active' RETURNING id`,
          [workspaceId, subscriberId, reason],
        )
      ).length,
  };
}

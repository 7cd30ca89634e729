// Sequences, their steps and enrolments on either SQL backend. Enrolments are claimed under a lease
// on the database's clock (daemons take different ones); a step's send moves its enrolment on in
// the accept transaction (messages.ts), so each step goes out once.
import { sql, type Selectable } from '#kysely';
import { SvcError } from '../../errors.js';
import type { Enrolment, SequenceStep, SequenceWithCount } from '../../model/sequence.js';
import type { SequenceStore } from '../port/sequences.js';
import { bool, flag, iso, isoOrNull, type Q, type SqlDb } from './db.js';
import { insertAll } from './messages.js';
import type { EnrolmentsTable, SequencesTable, SequenceStepsTable } from './tables.js';

const SEQ = ['id', 'workspace_id', 'list_id', 'name', 'trigger', 'active', 'created_at', 'updated_at'] as const;
const ENROL = [
  'id',
  'workspace_id',
  'sequence_id',
  'list_id',
  'subscriber_id',
  'status',
  'position',
  'last_at',
  'due_at',
  'reason',
  'created_at',
] as const;

const toSequence = (r: Pick<Selectable<SequencesTable>, (typeof SEQ)[number]>, steps: number): SequenceWithCount => ({
  id: r.id,
  workspace_id: r.workspace_id,
  list_id: r.list_id,
  name: r.name,
  trigger: r.trigger as SequenceWithCount['trigger'],
  active: bool(r.active),
  created_at: iso(r.created_at),
  updated_at: iso(r.updated_at),
  step_count: steps,
});
const toStep = (r: Selectable<SequenceStepsTable>): SequenceStep => ({ ...r, created_at: iso(r.created_at) });
const toEnrolment = (r: Pick<Selectable<EnrolmentsTable>, (typeof ENROL)[number]>): Enrolment => ({
  ...r,
  status: r.status as Enrolment['status'],
  last_at: iso(r.last_at),
  due_at: isoOrNull(r.due_at),
  created_at: iso(r.created_at),
});

/** The sequences with how many steps each has. */
async function counted(q: Q, rows: Array<Pick<Selectable<SequencesTable>, (typeof SEQ)[number]>>): Promise<SequenceWithCount[]> {
  if (!rows.length) return [];
  const counts = new Map(
    (
      await q
        .selectFrom('sequence_steps')
        .select(['sequence_id', (e) => e.fn.countAll<string | number>().as('n')])
        .where(
          'sequence_id',
          'in',
          rows.map((r) => r.id),
        )
        .groupBy('sequence_id')
        .execute()
    ).map((r) => [r.sequence_id, Number(r.n)]),
  );
  return rows.map((r) => toSequence(r, counts.get(r.id) ?? 0));
}

export function sqlSequences(db: SqlDb): SequenceStore {
  return {
    create: async (s) => {
      await db.run((q) =>
        q
          .insertInto('sequences')
          .values({ ...s, active: flag(s.active) })
          .execute(),
      );
      return { ...s, step_count: 0 };
    },
    list: (workspaceId) =>
      db.run(async (q) =>
        counted(q, await q.selectFrom('sequences').select(SEQ).where('workspace_id', '=', workspaceId).orderBy('seq').execute()),
      ),
    get: (workspaceId, id) =>
      db.run(
        async (q) =>
          (
            await counted(
              q,
              await q.selectFrom('sequences').select(SEQ).where('workspace_id', '=', workspaceId).where('id', '=', id).execute(),
            )
          )[0] ?? null,
      ),
    ofList: async (workspaceId, listId) =>
      (
        await db.run((q) =>
          q
            .selectFrom('sequences')
            .select(SEQ)
            .where('workspace_id', '=', workspaceId)
            .where('list_id', '=', listId)
            .where('active', '=', 1)
            .orderBy('seq')
            .execute(),
        )
      ).map((r) => {
        const { step_count: _n, ...s } = toSequence(r, 0);
        return s;
      }),
    remove: (workspaceId, id) =>
      db.tx(async (q) => {
        await q.deleteFrom('sequence_steps').where('sequence_id', '=', id).where('workspace_id', '=', workspaceId).execute();
        const r = await q.deleteFrom('sequences').where('workspace_id', '=', workspaceId).where('id', '=', id).executeTakeFirst();
        if (!Number(r.numDeletedRows)) return false;
        await q
          .updateTable('enrolments')
          .set({ status: 'stopped', due_at: null, reason: 'the sequence was removed' })
          .where('sequence_id', '=', id)
          .where('status', '=', 'active')
          .execute();
        return true;
      }),
    addStep: (step) =>
      db.tx(async (q) => {
        await db.lockKey(q, `svc_sequence:${step.sequence_id}`);
        const known = await q
          .selectFrom('sequences')
          .select('id')
          .where('workspace_id', '=', step.workspace_id)
          .where('id', '=', step.sequence_id)
          .executeTakeFirst();
        if (!known) throw new SvcError('not_found', 'sequence not found');
        const taken = await q
          .selectFrom('sequence_steps')
          .select('id')
          .where('sequence_id', '=', step.sequence_id)
          .where('position', '=', step.position)
          .executeTakeFirst();
        if (taken) throw new SvcError('conflict', `the sequence has a step at position ${step.position} already`);
        await q.insertInto('sequence_steps').values(step).execute();
        // The new step may be next for anyone who has not passed its position: looked at again now.
        await q
          .updateTable('enrolments')
          .set({ due_at: sql<string>`last_at` })
          .where('sequence_id', '=', step.sequence_id)
          .where('status', '=', 'active')
          .where('position', '<', step.position)
          .execute();
        return { ...step };
      }),
    steps: async (workspaceId, sequenceId) =>
      (
        await db.run((q) =>
          q
            .selectFrom('sequence_steps')
            .selectAll()
            .where('workspace_id', '=', workspaceId)
            .where('sequence_id', '=', sequenceId)
            .orderBy('position')
            .execute(),
        )
      ).map(toStep),
    removeStep: async (workspaceId, sequenceId, stepId) =>
      Number(
        (
          await db.run((q) =>
            q
              .deleteFrom('sequence_steps')
              .where('workspace_id', '=', workspaceId)
              .where('sequence_id', '=', sequenceId)
              .where('id', '=', stepId)
              .executeTakeFirst(),
          )
        ).numDeletedRows,
      ) > 0,
    // One enrolment per sequence and subscriber: those enrolled already are left as they are.
    enrol: (list) =>
      list.length
        ? db.tx(async (q) => {
            let n = 0;
            for (const e of list) {
              const r = await q
                .insertInto('enrolments')
                .values(e)
                .onConflict((c) => c.columns(['sequence_id', 'subscriber_id']).doNothing())
                .executeTakeFirst();
              n += Number(r.numInsertedOrUpdatedRows ?? 0);
            }
            return n;
          })
        : Promise.resolve(0),
    enrolments: async (workspaceId, sequenceId) =>
      (
        await db.run((q) =>
          q
            .selectFrom('enrolments')
            .select(ENROL)
            .where('workspace_id', '=', workspaceId)
            .where('sequence_id', '=', sequenceId)
            .orderBy('seq')
            .execute(),
        )
      ).map(toEnrolment),
    claimDue: (owner, now, leaseMs, max) =>
      db.tx(async (q) => {
        let due = q
          .selectFrom('enrolments')
          .select('id')
          .where('status', '=', 'active')
          .where('due_at', 'is not', null)
          .where('due_at', '<=', now)
          .where((e) => e.or([e('lease_until', 'is', null), e('lease_until', '<=', db.now())]))
          .orderBy('due_at')
          .limit(max);
        if (db.locksRows) due = due.forUpdate().skipLocked();
        const ids = (await due.execute()).map((r) => r.id);
        if (!ids.length) return [];
        const rows = await q
          .updateTable('enrolments')
          .set({ lease_owner: owner, lease_until: db.later(leaseMs) })
          .where('id', 'in', ids)
          .returning(ENROL)
          .execute();
        const byId = new Map(rows.map((r) => [r.id, r]));
        return ids.flatMap((id) => (byId.has(id) ? [toEnrolment(byId.get(id)!)] : []));
      }),
    advance: async (m) =>
      Number(
        (
          await db.run((q) =>
            q
              .updateTable('enrolments')
              .set({ position: m.position, last_at: m.last_at, due_at: m.due_at, reason: m.reason, lease_owner: null, lease_until: null })
              .where('id', '=', m.id)
              .where('position', '=', m.from)
              .where('status', '=', 'active')
              .executeTakeFirst(),
          )
        ).numUpdatedRows,
      ) > 0,
    stop: async (workspaceId, subscriberId, reason) =>
      Number(
        (
          await db.run((q) =>
            q
              .updateTable('enrolments')
              .set({ status: 'stopped', due_at: null, reason })
              .where('workspace_id', '=', workspaceId)
              .where('subscriber_id', '=', subscriberId)
              .where('status', '=', 'active')
              .executeTakeFirst(),
          )
        ).numUpdatedRows,
      ),
  };
}

// The lease columns of every leased queue table (lease_owner, lease_until) and the statements that
// claim and renew them, written once (the delivery queue's claim is its own, a fair one: queue.ts): a job is taken with FOR UPDATE SKIP LOCKED (several daemons
// never take the same one) for a time measured on the database's clock (one for every daemon,
// whatever theirs say), and comes back by itself when its owner stops renewing it.
// Parameters: $1 the owner, $2 the caller's now, $3 the lease in ms, $4 how many.

export interface ClaimShape {
  table: string;
  /** The alias of `table` in `due` and `join`. */
  alias: string;
  /** When a job is due (a job never tried is due at once; retries by the caller's clock). */
  due: string;
  /** Other tables a job must join to be claimable (an enabled endpoint). */
  join?: string;
  returning: string;
}

export function claimStatement(q: ClaimShape): string {
  const a = q.alias;
  return `UPDATE ${q.table} SET lease_owner = $1, lease_until = now() + $3 * interval '1 millisecond'
     WHERE id IN (SELECT ${a}.id FROM ${q.table} ${a} ${q.join ?? ''}
                   WHERE (${q.due}) AND (${a}.lease_until IS NULL OR ${a}.lease_until <= now())
                   ORDER BY ${a}.next_attempt_at LIMIT $4 FOR UPDATE OF ${a} SKIP LOCKED)
     RETURNING ${q.returning}`;
}

/** Extends the leases `$1` still holds on the jobs `$2` by `$3` ms from the database's now. */
export const renewStatement = (table: string) =>
  `UPDATE ${table} SET lease_until = now() + $3 * interval '1 millisecond' WHERE id = ANY($2) AND lease_owner = $1`;

/** Set with an attempt's outcome: the job is free again (for its next attempt). */
export const RELEASED = 'lease_owner = NULL, lease_until = NULL';

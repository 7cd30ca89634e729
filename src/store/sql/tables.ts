// The tables the SQL backends share, as Kysely sees them. A timestamp column is an ISO string on
// the way in and a Date (Postgres) or that string (SQLite) on the way out; a JSON column is text
// in and a value (Postgres) or text (SQLite) out: db.ts reads both.
import type { ColumnType } from 'kysely';

type At = ColumnType<Date | string, string, string>;
type Json = ColumnType<unknown, string, string>;

export interface SuppressionsTable {
  workspace_id: string;
  address: string;
  reason: string;
  detail: string | null;
  created_at: At;
  message_id: string | null;
  class: string | null;
}

export interface DaemonStatusTable {
  id: string;
  report: Json;
  updated_at: At;
}

export interface RateBucketsTable {
  key_id: string;
  /** The epoch second (Postgres bigint: a string on the way out). */
  sec: ColumnType<string | number, number, number>;
  n: number;
}

export interface Tables {
  rate_buckets: RateBucketsTable;
  suppressions: SuppressionsTable;
  daemon_status: DaemonStatusTable;
}

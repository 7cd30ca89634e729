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

export interface Tables {
  suppressions: SuppressionsTable;
  daemon_status: DaemonStatusTable;
}

// Backups taken while the daemon runs (`svc backup`, docs/operating.md "Backups"): the file store writes a
// consistent snapshot of itself; Postgres is backed up with its own tools (pg_dump).
export interface Snapshot {
  /** The file written (absolute). */
  file: string;
  bytes: number;
  /** Files of the store in it. */
  files: number;
}

export interface BackupStore {
  /**
   * Writes a snapshot of the whole store to `out` (an absolute path that does not exist yet), as
   * the store was at one instant: what a crash at that instant would have left, which the store
   * opens as it opens after a crash. Postgres refuses: pg_dump does this for a database.
   */
  snapshot(out: string): Promise<Snapshot>;
}

// The transactions a backend may run where the database is (db.ts, Procedure), by name: the
// embedded daemon's SQLite thread finds here the one a message names.
import type { Procedure } from './db.js';
import { receiveMail } from './inbox.js';
import { accept } from './messages.js';
import { complete } from './queue.js';

export const procedures: ReadonlyMap<string, Procedure<never, unknown>> = new Map(
  [accept, complete, receiveMail].map((p) => [p.name, p as unknown as Procedure<never, unknown>]),
);

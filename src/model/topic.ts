// What the bus announces: that work of a kind arrived (src/bus.ts), in this process and, through
// the store, to the others sharing it (a daemon, the commands run beside it, other daemons on one
// Postgres). A topic carries no data: a listener reads the store.
export const TOPICS = ['queued', 'outboxed', 'attempted', 'received', 'campaign', 'enrolled', 'deleted', 'retried', 'sessions'] as const;

/** `queued`: outbound jobs; `outboxed`: webhook events; `attempted`: webhook attempts recorded; `received`: inbox items the MX stored; `campaign`: a broadcast to fan out (or cancelled); `enrolled`: sequence enrolments (or steps) the scheduler should look at; `deleted`: a workspace whose data is to be removed; `retried`: an operator made queued mail due now (`svc queue retry`): paused destinations are tried again too; `sessions`: sessions ended or a person left a workspace (sign-out, `svc users reset` or `remove`): what a session holds open (a live inbox page) is checked again. */
export type Topic = (typeof TOPICS)[number];

export const isTopic = (s: unknown): s is Topic => typeof s === 'string' && (TOPICS as readonly string[]).includes(s);

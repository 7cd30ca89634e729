// Short ids, as git takes them: every command that takes an id takes a unique prefix of it too (at
// least 4 characters), so the 8 characters a narrow table shows can be typed back. A prefix that
// fits several is refused (exit 1) with the candidates listed; one that fits none is passed on
// unchanged, and the command says "not found" as for any unknown id.
import { SvcError } from '../src/errors.js';
import type { Workspace } from '../src/model/workspace.js';
import type { Context } from './context.js';

export const MIN_PREFIX = 4;
const FULL = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const SHOWN = 10;

export interface Candidate {
  id: string;
  /** What people know it by (a name, a URL, a subject), shown beside an ambiguous id. */
  label?: string;
}

/** The full id `given` stands for. `find`: the ids that start with a prefix (a few more than shown is enough). */
export async function resolveId(what: string, given: string, find: (prefix: string) => Promise<Candidate[]>): Promise<string> {
  if (FULL.test(given) || given.length < MIN_PREFIX) return given;
  const prefix = given.toLowerCase();
  const found = await find(prefix);
  const matches = found.filter((c) => c.id.startsWith(prefix));
  if (matches.length === 1) return matches[0]!.id;
  if (matches.length === 0) return given;
  const list = matches
    .slice(0, SHOWN)
    .map((c) => (c.label ? `${c.id} (${c.label})` : c.id))
    .join(', ');
  throw new SvcError(
    'ambiguous',
    `'${given}' is the start of ${matches.length > SHOWN ? `more than ${SHOWN}` : matches.length} ${what} ids: ${list}; give more of it`,
  );
}

/** What an id argument names; each kind knows how to find the ids that start with a prefix. */
export type IdKind =
  'key' | 'endpoint' | 'list' | 'campaign' | 'sequence' | 'step' | 'message' | 'delivery' | 'subscriber' | 'inbox item' | 'thread';

/** Ids a command takes: positional arguments by index, options by name (commander's camelCase). */
export interface IdArgs {
  args?: Record<number, IdKind>;
  options?: Record<string, IdKind>;
}

/** Finds the ids of one kind that start with a prefix, through the part of the service that holds them. */
type Finder = (ctx: Context, ws: Workspace, prefix: string, args: string[]) => Promise<Candidate[]>;
const starting = <T extends { id: string }>(rows: T[], prefix: string, label: (r: T) => string | undefined): Candidate[] =>
  rows.filter((r) => r.id.startsWith(prefix)).map((r) => ({ id: r.id, ...(label(r) ? { label: label(r)! } : {}) }));
const ids = (list: string[]): Candidate[] => list.map((id) => ({ id }));

const FINDERS: Record<IdKind, Finder> = {
  key: async (c, ws, p) => starting(await (await c.parts('keys')).keys.list(ws), p, (k) => k.name),
  endpoint: async (c, ws, p) => starting(await (await c.parts('webhooks')).webhooks.list(ws), p, (e) => e.url),
  list: async (c, ws, p) => starting(await (await c.parts('lists')).lists.list(ws), p, (l) => l.name),
  campaign: async (c, ws, p) => starting(await (await c.parts('broadcasts')).broadcasts.list(ws), p, (x) => x.subject),
  sequence: async (c, ws, p) => starting(await (await c.parts('sequences')).sequences.list(ws), p, (q) => q.name),
  // A step's sequence is the argument before it (already resolved).
  step: async (c, ws, p, args) => starting(await (await c.parts('sequences')).sequences.steps(ws, args[0]!), p, (x) => x.subject),
  message: async (c, ws, p) => ids(await (await c.parts()).store.messages.idsWithPrefix(ws.id, p, SHOWN + 1)),
  delivery: async (c, ws, p) => ids(await (await c.parts()).store.webhooks.attemptIdsWithPrefix(ws.id, p, SHOWN + 1)),
  // A subscriber's list is the argument before it (already resolved).
  subscriber: async (c, ws, p, args) => ids(await (await c.parts()).store.subscribers.idsWithPrefix(ws.id, args[0]!, p, SHOWN + 1)),
  'inbox item': async (c, ws, p) => ids(await (await c.parts()).store.inbox.idsWithPrefix(ws.id, p, SHOWN + 1, false)),
  thread: async (c, ws, p) => ids(await (await c.parts()).store.inbox.idsWithPrefix(ws.id, p, SHOWN + 1, true)),
};

/** The command's id arguments and options, each a full id from here on (CommandSpec.ids). */
export async function resolveIds(ctx: Context, spec: IdArgs, args: string[], opts: Record<string, unknown>): Promise<void> {
  const wanted = [
    ...Object.entries(spec.args ?? {}).filter(([i]) => typeof args[Number(i)] === 'string'),
    ...Object.entries(spec.options ?? {}).filter(([name]) => typeof opts[name] === 'string'),
  ];
  // Only a short id costs a look-up (and opens the store); full ids and nothing given cost nothing.
  const short = (v: unknown) => typeof v === 'string' && v.length >= MIN_PREFIX && !FULL.test(v);
  if (!wanted.some(([k]) => short(/^\d+$/.test(k) ? args[Number(k)] : opts[k]))) return;
  const ws = await ctx.workspace();
  for (const [i, kind] of Object.entries(spec.args ?? {})) {
    const given = args[Number(i)];
    if (typeof given === 'string') args[Number(i)] = await resolveId(kind, given, (p) => FINDERS[kind](ctx, ws, p, args));
  }
  for (const [name, kind] of Object.entries(spec.options ?? {})) {
    const given = opts[name];
    if (typeof given === 'string') opts[name] = await resolveId(kind, given, (p) => FINDERS[kind](ctx, ws, p, args));
  }
}

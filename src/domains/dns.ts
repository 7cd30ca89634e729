// DNS look-ups for domain checks and MX routing, through the configured resolvers (--dns-server)
// with a timeout. A look-up never throws: it is found records, nothing found, or a failure to ask
// (timeout, SERVFAIL, refused), which checks report as Waiting with a note.
import { isIP } from 'node:net';
import { Resolver } from 'node:dns/promises';

export interface MxRecord {
  exchange: string;
  priority: number;
}

/** `nxdomain`: the name does not exist at all (not merely without records of this type). */
export type Lookup<T> = { ok: true; records: T[]; nxdomain?: boolean } | { ok: false; reason: string };

export interface DnsClient {
  /** Each TXT record with its character-strings joined (providers split long values). */
  txt(name: string): Promise<Lookup<string>>;
  mx(name: string): Promise<Lookup<MxRecord>>;
  /** IPv4 addresses, else IPv6 ones. */
  addresses(name: string): Promise<Lookup<string>>;
  /** The names of an address (PTR): `svc doctor`'s forward-and-reverse check of the HELO name. */
  reverse?(ip: string): Promise<Lookup<string>>;
}

const NOT_FOUND = new Set(['ENODATA', 'ENOTFOUND', 'NXDOMAIN']);
const REASONS: Record<string, string> = {
  ETIMEOUT: 'the DNS query timed out',
  ESERVFAIL: 'the DNS server answered SERVFAIL',
  ECONNREFUSED: 'the DNS server refused the connection',
  EREFUSED: 'the DNS server refused the query',
  EBADRESP: 'the DNS server sent a malformed answer',
  ECANCELLED: 'the DNS query was cancelled',
};

async function ask<T>(run: () => Promise<T[]>): Promise<Lookup<T>> {
  try {
    return { ok: true, records: await run() };
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code ?? '';
    if (code === 'ENOTFOUND' || code === 'NXDOMAIN') return { ok: true, records: [], nxdomain: true };
    if (NOT_FOUND.has(code)) return { ok: true, records: [] };
    return { ok: false, reason: REASONS[code] ?? `the DNS query failed (${code || (e as Error).message})` };
  }
}

export interface DnsOptions {
  /** host[:port] or [v6]:port; empty for the system's resolvers. */
  servers: string[];
  timeoutMs: number;
  tries?: number;
}

/** A resolver that asks the configured servers (the system's when none), with the timeout and tries. */
function resolverOf(opts: DnsOptions): Resolver {
  const resolver = new Resolver({ timeout: opts.timeoutMs, tries: opts.tries ?? 2 });
  if (opts.servers.length) resolver.setServers(opts.servers);
  return resolver;
}

/** `1.2.3.4` → `4.3.2.1.in-addr.arpa`; an IPv6 address → its nibbles under ip6.arpa. */
export function reverseName(ip: string): string {
  if (isIP(ip) === 4) return `${ip.split('.').reverse().join('.')}.in-addr.arpa`;
  const [head = '', tail = ''] = ip.split('::');
  const groups = (x: string) => (x ? x.split(':') : []);
  const h = groups(head);
  const t = groups(tail);
  const full = [...h, ...Array(8 - h.length - t.length).fill('0'), ...t].map((g) => g.padStart(4, '0')).join('');
  return `${[...full].reverse().join('.')}.ip6.arpa`;
}

export function dnsClient(opts: DnsOptions): DnsClient {
  const resolver = resolverOf(opts);
  return {
    txt: (name) => ask(async () => (await resolver.resolveTxt(name)).map((chunks) => chunks.join(''))),
    mx: (name) => ask(() => resolver.resolveMx(name)),
    addresses: async (name) => {
      const v4 = await ask(() => resolver.resolve4(name));
      if (!v4.ok || v4.records.length) return v4;
      return ask(() => resolver.resolve6(name));
    },
    // A PTR query for the address's reverse name (resolver.reverse would read /etc/hosts first).
    reverse: (ip) => ask(() => resolver.resolvePtr(reverseName(ip))),
  };
}

/** `resolve(name, type)` as node:dns has it (what mailauth asks through), throwing its error codes. */
export type ResolveFn = (name: string, type: string) => Promise<unknown>;

/**
 * Raw look-ups through the configured resolvers, each answer (and "no such name / no such record")
 * kept for `ttlMs`, at most `max` answers: the inbound checks of one sender ask the same names
 * message after message. Failures to ask (timeouts, SERVFAIL) are not kept.
 */
export function cachedResolve(opts: DnsOptions & { ttlMs?: number; max?: number }): ResolveFn {
  const resolver = resolverOf(opts);
  const ttl = opts.ttlMs ?? 60_000;
  const max = opts.max ?? 10_000;
  const kept = new Map<string, { until: number; answer: Promise<unknown> }>();
  return (name, type) => {
    const key = `${type} ${name.toLowerCase()}`;
    const now = Date.now();
    const hit = kept.get(key);
    if (hit && hit.until > now) return hit.answer;
    const answer = resolver.resolve(name, type as 'TXT');
    answer.catch((e: NodeJS.ErrnoException) => {
      if (!NOT_FOUND.has(e.code ?? '') && kept.get(key)?.answer === answer) kept.delete(key);
    });
    kept.delete(key);
    if (kept.size >= max) kept.delete(kept.keys().next().value!);
    kept.set(key, { until: now + ttl, answer });
    return answer;
  };
}

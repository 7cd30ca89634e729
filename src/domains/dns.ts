// DNS look-ups for domain checks and MX routing, through the configured resolvers (--dns-server)
// with a timeout. A look-up never throws: it is found records, nothing found, or a failure to ask
// (timeout, SERVFAIL, refused), which checks report as Waiting with a note.
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

export function dnsClient(opts: DnsOptions): DnsClient {
  const resolver = new Resolver({ timeout: opts.timeoutMs, tries: opts.tries ?? 2 });
  if (opts.servers.length) resolver.setServers(opts.servers);
  return {
    txt: (name) => ask(async () => (await resolver.resolveTxt(name)).map((chunks) => chunks.join(''))),
    mx: (name) => ask(() => resolver.resolveMx(name)),
    addresses: async (name) => {
      const v4 = await ask(() => resolver.resolve4(name));
      if (!v4.ok || v4.records.length) return v4;
      return ask(() => resolver.resolve6(name));
    },
  };
}

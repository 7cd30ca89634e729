// Where a webhook may go (SSRF): https only, and never to an address inside the operator's
// network (loopback, private, link-local and cloud metadata, CGNAT, multicast, reserved), however
// it is spelled (0x7f000001, ::ffff:10.0.0.1, 64:ff9b::a00:1). The addresses are checked when the
// URL is added and again, after resolving the name, at every delivery; the connection then goes to
// the address that was checked (sender.ts), so DNS cannot change it in between.
// --allow-insecure-webhooks lifts both rules for development.
import { BlockList, isIP } from 'node:net';
import { lookup, Resolver } from 'node:dns/promises';
import { SvcError } from '../errors.js';

const V4: Array<[string, number, string]> = [
  ['0.0.0.0', 8, 'a "this network" address'],
  ['10.0.0.0', 8, 'a private address'],
  ['100.64.0.0', 10, 'a carrier-grade NAT address'],
  ['127.0.0.0', 8, 'a loopback address'],
  ['169.254.0.0', 16, 'a link-local (cloud metadata) address'],
  ['172.16.0.0', 12, 'a private address'],
  ['192.0.0.0', 24, 'a reserved address'],
  ['192.0.2.0', 24, 'a documentation address'],
  ['192.168.0.0', 16, 'a private address'],
  ['198.18.0.0', 15, 'a benchmarking address'],
  ['198.51.100.0', 24, 'a documentation address'],
  ['203.0.113.0', 24, 'a documentation address'],
  ['224.0.0.0', 4, 'a multicast address'],
  ['240.0.0.0', 4, 'a reserved address'],
];
const V6: Array<[string, number, string]> = [
  ['::', 128, 'the unspecified address'],
  ['::1', 128, 'a loopback address'],
  ['100::', 64, 'a discard address'],
  ['2001:db8::', 32, 'a documentation address'],
  ['fc00::', 7, 'a private (unique local) address'],
  ['fe80::', 10, 'a link-local address'],
  ['fec0::', 10, 'a site-local address'],
  ['ff00::', 8, 'a multicast address'],
];

const lists = (() => {
  const by = new Map<string, BlockList>();
  for (const [net, bits, why] of V4) {
    if (!by.has(why)) by.set(why, new BlockList());
    by.get(why)!.addSubnet(net, bits, 'ipv4');
  }
  for (const [net, bits, why] of V6) {
    if (!by.has(why)) by.set(why, new BlockList());
    by.get(why)!.addSubnet(net, bits, 'ipv6');
  }
  return [...by];
})();

/** The IPv4 address an IPv6 one carries (mapped ::ffff:0:0/96, NAT64 64:ff9b::/96, 6to4 2002::/16), if any. */
function embeddedV4(v6: string): string | null {
  const groups = expandV6(v6);
  if (!groups) return null;
  const v4 = (hi: number, lo: number) => `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
  if (groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff) return v4(groups[6]!, groups[7]!);
  if (groups[0] === 0x64 && groups[1] === 0xff9b && groups.slice(2, 6).every((g) => g === 0)) return v4(groups[6]!, groups[7]!);
  if (groups[0] === 0x2002) return v4(groups[1]!, groups[2]!);
  // IPv4-compatible (deprecated) ::a.b.c.d
  if (groups.slice(0, 6).every((g) => g === 0) && (groups[6]! | groups[7]!) !== 0 && !(groups[6] === 0 && groups[7]! <= 1))
    return v4(groups[6]!, groups[7]!);
  return null;
}

function expandV6(addr: string): number[] | null {
  let a = addr
    .toLowerCase()
    .replace(/^\[|\]$/g, '')
    .split('%')[0]!;
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(a);
  if (dotted) {
    const p = dotted[1]!.split('.').map(Number);
    a = a.slice(0, -dotted[1]!.length) + `${((p[0]! << 8) | p[1]!).toString(16)}:${((p[2]! << 8) | p[3]!).toString(16)}`;
  }
  const [head, tail] = a.includes('::') ? a.split('::') : [a, null];
  const h = head ? head.split(':') : [];
  const t = tail ? tail.split(':') : [];
  const fill = tail === null ? 0 : 8 - h.length - t.length;
  const all = [...h, ...Array(fill).fill('0'), ...t].map((g) => parseInt(g, 16));
  return all.length === 8 && all.every((g) => g >= 0 && g <= 0xffff) ? all : null;
}

/** Why this IP address is not a place for webhooks, or null when it is public. */
export function forbiddenAddress(ip: string): string | null {
  const bare = ip.replace(/^\[|\]$/g, '');
  const family = isIP(bare);
  if (family === 0) return 'not an IP address';
  if (family === 6) {
    const v4 = embeddedV4(bare);
    if (v4) {
      const why = forbiddenAddress(v4);
      return why ? `${why} (${v4}) in IPv6 form` : null;
    }
  }
  const type = family === 4 ? 'ipv4' : 'ipv6';
  for (const [why, list] of lists) if (list.check(bare, type)) return why;
  return null;
}

export interface Target {
  url: URL;
  /** The name to resolve, or the literal address. */
  host: string;
  literal: boolean;
}

/** A webhook URL as given to `svc webhooks add` or found on an endpoint: parsed and checked. */
export function checkTarget(raw: string, allowInsecure: boolean): Target {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new SvcError('invalid_argument', `invalid webhook URL '${raw}'`);
  }
  if (raw.length > 2048) throw new SvcError('invalid_argument', 'webhook URL longer than 2048 characters');
  if (url.protocol !== 'https:' && !(allowInsecure && url.protocol === 'http:')) {
    throw new SvcError('invalid_argument', `webhook URL must be https:// (http:// only with --allow-insecure-webhooks): ${raw}`);
  }
  url.hash = '';
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const literal = isIP(host) !== 0;
  if (!allowInsecure) {
    const why = literal ? forbiddenAddress(host) : /(^|\.)localhost\.?$/i.test(host) ? 'a loopback name' : null;
    if (why) throw new SvcError('invalid_argument', `webhook URL points at ${why} (${host}); allowed only with --allow-insecure-webhooks`);
  }
  return { url, host, literal };
}

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

export type Resolve = (host: string) => Promise<ResolvedAddress[]>;

/** The configured DNS servers when there are any (as for MX look-ups), else the system's lookup. */
export function resolverFor(servers: string[], timeoutMs: number): Resolve {
  if (!servers.length)
    return async (host) =>
      (await lookup(host, { all: true, verbatim: true })).map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));
  const r = new Resolver({ timeout: timeoutMs, tries: 2 });
  r.setServers(servers);
  return async (host) => {
    const [v4, v6] = await Promise.all([r.resolve4(host).catch(() => [] as string[]), r.resolve6(host).catch(() => [] as string[])]);
    const all = [...v4.map((address) => ({ address, family: 4 as const })), ...v6.map((address) => ({ address, family: 6 as const }))];
    if (!all.length) throw new Error(`${host} has no A or AAAA records`);
    return all;
  };
}

/**
 * The address to connect to for this target, checked: every address the name has must be
 * allowed (one private answer among public ones is refused too).
 */
export async function pickAddress(t: Target, resolve: Resolve, allowInsecure: boolean): Promise<ResolvedAddress> {
  const all: ResolvedAddress[] = t.literal ? [{ address: t.host, family: isIP(t.host) === 6 ? 6 : 4 }] : await resolve(t.host);
  if (!allowInsecure) {
    for (const a of all) {
      const why = forbiddenAddress(a.address);
      if (why) throw new SvcError('forbidden', `refused: ${t.host} resolves to ${why} (${a.address})`);
    }
  }
  return all[0]!;
}

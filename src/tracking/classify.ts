// src/tracking/: opens and clicks: who most likely caused each (this file, with the dated list in
// sources.json), the batched recorder that stores them after the answer (recorder.ts), and tracked
// links (links.ts).
//
// What most likely caused an open or a click, and the rule that said so. In order: an open within
// the prefetch window of sending is automatic (spec.md: "a few seconds usually means automatic
// image fetching"); a known scanner's agent or address, a click within the window of delivery, or
// several links of one copy in the same second is a security gateway; a privacy prefetcher's address
// or agent (Apple Mail Privacy Protection fetches every image when mail arrives) is a prefetch; an
// image proxy that fetches as the reader opens (Gmail, Yahoo) is counted, labelled proxy; the rest
// is a person.
import { BlockList, isIPv4, isIPv6 } from 'node:net';
import { readFileSync } from 'node:fs';
import type { Source } from '../model/tracking.js';

interface SourceList {
  updated: string;
  proxy: Group[];
  prefetch: Group[];
  scanner: Group[];
}
interface Group {
  name: string;
  agents: string[];
  ranges: string[];
}

/** The shipped list (sources.json): who fetches besides the reader. */
export const SOURCE_LIST = JSON.parse(readFileSync(new URL('./sources.json', import.meta.url), 'utf8')) as SourceList;

/**
 * One kind of fetcher (proxy, prefetch, scanner): every range of its groups in one BlockList, so a
 * request costs one address check per kind (a hit on the pixel path runs this thousands of times a
 * second); the group is named only when something matched.
 */
interface Kind {
  groups: Array<{ name: string; agents: string[]; ranges: BlockList }>;
  ranges: BlockList;
}

function kind(groups: Group[]): Kind {
  const all = new BlockList();
  const add = (list: BlockList, r: string) => {
    const [net, bits] = r.split('/');
    list.addSubnet(net!, Number(bits), isIPv6(net!) ? 'ipv6' : 'ipv4');
  };
  return {
    groups: groups.map((g) => {
      const ranges = new BlockList();
      for (const r of g.ranges) {
        add(ranges, r);
        add(all, r);
      }
      return { name: g.name, agents: g.agents.map((a) => a.toLowerCase()), ranges };
    }),
    ranges: all,
  };
}

type KindName = 'proxy' | 'prefetch' | 'scanner';
type Kinds<T> = Record<KindName, T>;
const KINDS: KindName[] = ['proxy', 'prefetch', 'scanner'];
/**
 * The lists' ranges, made on the first hit: about 6 ms of BlockList building that every process
 * importing the service paid at start (a command-line `svc keys list` included) is paid only by one
 * that classifies.
 */
let made: Kinds<Kind> | undefined;
const lists = (): Kinds<Kind> =>
  (made ??= { proxy: kind(SOURCE_LIST.proxy), prefetch: kind(SOURCE_LIST.prefetch), scanner: kind(SOURCE_LIST.scanner) });

/**
 * What an address or an agent is, remembered: a BlockList check costs about 2 µs and an agent is
 * searched for every listed substring, while the same proxies, gateways and browsers come back
 * again and again (the pixel path runs this thousands of times a second). The oldest are forgotten
 * past KEPT, so a flood of made-up values costs memory only up to there.
 */
const KEPT = 10_000;
function remembered<T>(compute: (key: string) => T): (key: string) => T {
  const seen = new Map<string, T>();
  return (key) => {
    let v = seen.get(key);
    if (v === undefined) {
      v = compute(key);
      seen.set(key, v);
      if (seen.size > KEPT) seen.delete(seen.keys().next().value!);
    }
    return v;
  };
}

/** The address's family and, per kind, the group whose ranges hold it: "Name (address)", or null. */
const byAddress = remembered((ip: string) => {
  const family = isIPv4(ip) ? 'ipv4' : isIPv6(ip) ? 'ipv6' : null;
  const named = (name: KindName) => {
    const list = lists()[name];
    if (!family || !list.ranges.check(ip, family)) return null;
    return `${list.groups.find((g) => g.ranges.check(ip, family))!.name} (address)`;
  };
  return Object.fromEntries(KINDS.map((k) => [k, named(k)])) as Kinds<string | null>;
});

/** Per kind, the first group one of whose agents the user agent contains: "Name (agent)", or null. */
const byAgent = remembered((userAgent: string) => {
  const ua = userAgent.toLowerCase();
  const named = (name: KindName) => {
    const g = lists()[name].groups.find((x) => x.agents.some((a) => ua.includes(a)));
    return g ? `${g.name} (agent)` : null;
  };
  return Object.fromEntries(KINDS.map((k) => [k, named(k)])) as Kinds<string | null>;
});

/** The group of this kind the request came from, by its agent first, then by its address. */
function find(name: KindName, ip: string | null, ua: string | null): string | null {
  return (ua ? byAgent(ua)[name] : null) ?? (ip ? byAddress(ip)[name] : null);
}

export interface Hit {
  kind: 'open' | 'click';
  ip: string | null;
  user_agent: string | null;
  at: string;
}

export interface Verdict {
  source: Source;
  reason: string;
}

/**
 * `sentAt`: when the copy was handed off (null: not yet: anything is then automatic);
 * `clicksSameSecond`: other links of this copy clicked in the same second before this one.
 */
export function classify(hit: Hit, sentAt: string | null, windowSeconds: number, clicksSameSecond: number): Verdict {
  const after = sentAt ? (Date.parse(hit.at) - Date.parse(sentAt)) / 1000 : -1;
  if (hit.kind === 'open' && after < windowSeconds)
    return {
      source: 'prefetch',
      reason: sentAt
        ? `open ${Math.max(0, Math.round(after))} s after sending, within the ${windowSeconds} s prefetch window`
        : 'open before the message was sent',
    };
  const scanner = find('scanner', hit.ip, hit.user_agent);
  if (scanner) return { source: 'scanner', reason: scanner };
  if (hit.kind === 'click' && after < windowSeconds)
    return {
      source: 'scanner',
      reason: sentAt ? `click ${Math.max(0, Math.round(after))} s after sending` : 'click before the message was sent',
    };
  if (hit.kind === 'click' && clicksSameSecond > 0)
    return { source: 'scanner', reason: `${clicksSameSecond + 1} links of one copy in the same second` };
  const prefetch = find('prefetch', hit.ip, hit.user_agent);
  if (prefetch) return { source: 'prefetch', reason: prefetch };
  const proxy = find('proxy', hit.ip, hit.user_agent);
  if (proxy) return { source: 'proxy', reason: proxy };
  return { source: 'human', reason: 'no automatic pattern' };
}

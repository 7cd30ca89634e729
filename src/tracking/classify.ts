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
  agents: string[];
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
    agents: groups.flatMap((g) => g.agents.map((a) => a.toLowerCase())),
    ranges: all,
  };
}

const LISTS = { proxy: kind(SOURCE_LIST.proxy), prefetch: kind(SOURCE_LIST.prefetch), scanner: kind(SOURCE_LIST.scanner) };

/**
 * Which kinds an address is in, remembered (a BlockList check costs about 2 µs, and the same
 * proxies and gateways come back again and again); the oldest are forgotten past ADDRESSES_KEPT.
 */
const ADDRESSES_KEPT = 10_000;
const known = new Map<string, { proxy: boolean; prefetch: boolean; scanner: boolean }>();
function inRanges(ip: string, family: 'ipv4' | 'ipv6'): { proxy: boolean; prefetch: boolean; scanner: boolean } {
  let hit = known.get(ip);
  if (!hit) {
    hit = { proxy: LISTS.proxy.ranges.check(ip, family), prefetch: LISTS.prefetch.ranges.check(ip, family), scanner: LISTS.scanner.ranges.check(ip, family) };
    known.set(ip, hit);
    if (known.size > ADDRESSES_KEPT) known.delete(known.keys().next().value!);
  }
  return hit;
}

function find(name: keyof typeof LISTS, ip: string | null, ua: string, family: 'ipv4' | 'ipv6' | null): string | null {
  const k = LISTS[name];
  const byAgent = ua !== '' && k.agents.some((a) => ua.includes(a));
  const byAddress = !byAgent && ip !== null && family !== null && inRanges(ip, family)[name];
  if (!byAgent && !byAddress) return null;
  const g = k.groups.find((x) => (byAgent ? x.agents.some((a) => ua.includes(a)) : x.ranges.check(ip!, family!)))!;
  return `${g.name} (${byAgent ? 'agent' : 'address'})`;
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
  const ua = hit.user_agent?.toLowerCase() ?? '';
  const family = hit.ip && isIPv4(hit.ip) ? 'ipv4' : hit.ip && isIPv6(hit.ip) ? 'ipv6' : null;
  if (hit.kind === 'open' && after < windowSeconds) return { source: 'prefetch', reason: sentAt ? `open ${Math.max(0, Math.round(after))} s after sending, within the ${windowSeconds} s prefetch window` : 'open before the message was sent' };
  const scanner = find('scanner', hit.ip, ua, family);
  if (scanner) return { source: 'scanner', reason: scanner };
  if (hit.kind === 'click' && after < windowSeconds) return { source: 'scanner', reason: sentAt ? `click ${Math.max(0, Math.round(after))} s after sending` : 'click before the message was sent' };
  if (hit.kind === 'click' && clicksSameSecond > 0) return { source: 'scanner', reason: `${clicksSameSecond + 1} links of one copy in the same second` };
  const prefetch = find('prefetch', hit.ip, ua, family);
  if (prefetch) return { source: 'prefetch', reason: prefetch };
  const proxy = find('proxy', hit.ip, ua, family);
  if (proxy) return { source: 'proxy', reason: proxy };
  return { source: 'human', reason: 'no automatic pattern' };
}

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

interface Matcher {
  name: string;
  agents: string[];
  ranges: BlockList;
}

function matchers(groups: Group[]): Matcher[] {
  return groups.map((g) => {
    const ranges = new BlockList();
    for (const r of g.ranges) {
      const [net, bits] = r.split('/');
      ranges.addSubnet(net!, Number(bits), isIPv6(net!) ? 'ipv6' : 'ipv4');
    }
    return { name: g.name, agents: g.agents.map((a) => a.toLowerCase()), ranges };
  });
}

const LISTS = { proxy: matchers(SOURCE_LIST.proxy), prefetch: matchers(SOURCE_LIST.prefetch), scanner: matchers(SOURCE_LIST.scanner) };

function find(list: Matcher[], ip: string | null, agent: string | null): string | null {
  const ua = agent?.toLowerCase() ?? '';
  const family = ip && isIPv4(ip) ? 'ipv4' : ip && isIPv6(ip) ? 'ipv6' : null;
  for (const m of list) {
    if (ua && m.agents.some((a) => ua.includes(a))) return `${m.name} (agent)`;
    if (ip && family && m.ranges.check(ip, family)) return `${m.name} (address)`;
  }
  return null;
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
  if (hit.kind === 'open' && after < windowSeconds) return { source: 'prefetch', reason: sentAt ? `open ${Math.max(0, Math.round(after))} s after sending, within the ${windowSeconds} s prefetch window` : 'open before the message was sent' };
  const scanner = find(LISTS.scanner, hit.ip, hit.user_agent);
  if (scanner) return { source: 'scanner', reason: scanner };
  if (hit.kind === 'click' && after < windowSeconds) return { source: 'scanner', reason: sentAt ? `click ${Math.max(0, Math.round(after))} s after sending` : 'click before the message was sent' };
  if (hit.kind === 'click' && clicksSameSecond > 0) return { source: 'scanner', reason: `${clicksSameSecond + 1} links of one copy in the same second` };
  const prefetch = find(LISTS.prefetch, hit.ip, hit.user_agent);
  if (prefetch) return { source: 'prefetch', reason: prefetch };
  const proxy = find(LISTS.proxy, hit.ip, hit.user_agent);
  if (proxy) return { source: 'proxy', reason: proxy };
  return { source: 'human', reason: 'no automatic pattern' };
}

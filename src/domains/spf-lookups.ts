// How many DNS look-ups evaluating an SPF record costs a receiver (RFC 7208 §4.6.4): every include,
// a, mx, ptr, exists and redirect is one, counted through the included records (a redirect
// beside an `all` counts but is not followed). More than 10 is a
// permerror at the receiver, so SPF fails for all mail however right the record looks.
import type { DnsClient } from './dns.js';

export const SPF_LOOKUP_LIMIT = 10;
const COUNTED = /^[+\-~?]?(include:|a$|a:|a\/|mx$|mx:|mx\/|ptr$|ptr:|exists:)|^redirect=/i;

const spfOf = (records: string[]) => records.find((r) => /^\s*v=spf1(\s|$)/i.test(r));

/**
 * The look-ups the record needs, stopping once past the limit (the exact count beyond is moot).
 * Every occurrence of an include counts, each time it is evaluated (an include named twice costs
 * twice, as pyspf and libspf2 count it); one that includes itself, directly or further down, never
 * ends at a receiver, so it is past the limit. `records`: the TXT answers of this evaluation, asked once.
 */
export async function countSpfLookups(
  record: string,
  dns: DnsClient,
  chain: string[] = [],
  records = new Map<string, string | undefined>(),
): Promise<number> {
  let count = 0;
  const terms = record.trim().split(/\s+/).slice(1);
  // A redirect is never followed when the record has an `all` (RFC 7208 §6.1), but its term still
  // counts, as receivers count it (pyspf does).
  const hasAll = terms.some((t) => /^[+\-~?]?all$/i.test(t));
  for (const term of terms) {
    if (!COUNTED.test(term)) continue;
    count++;
    if (count > SPF_LOOKUP_LIMIT) return count;
    const target = /^[+\-~?]?include:(.+)$/i.exec(term)?.[1] ?? (hasAll ? undefined : /^redirect=(.+)$/i.exec(term)?.[1]);
    if (!target) continue;
    const name = target.toLowerCase().replace(/\.$/, '');
    if (chain.includes(name)) return SPF_LOOKUP_LIMIT + 1;
    if (!records.has(name)) {
      const txt = await dns.txt(name);
      records.set(name, txt.ok ? spfOf(txt.records) : undefined);
    }
    const inner = records.get(name);
    if (inner) count += await countSpfLookups(inner, dns, [...chain, name], records);
    if (count > SPF_LOOKUP_LIMIT) return count;
  }
  return count;
}

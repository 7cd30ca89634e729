// The rules of each of the five checks (spec.md "Prerequisites for sending"), as pure
// functions of what DNS answered. Verified and Recommended pass; Waiting (nothing there yet, or DNS
// did not answer) and Problem (something there, but wrong) do not. A note says what to do.
import type { Lookup, MxRecord } from './dns.js';
import { dkimValue, spfInclude } from './records.js';
import type { RecordStatus } from '../model/domain.js';
import { SPF_LOOKUP_LIMIT } from './spf-lookups.js';

export interface Evaluation {
  status: RecordStatus;
  note: string | null;
  /** What to publish instead of the default value, when what is there must be merged (SPF). */
  value?: string;
}

const waitingFor = (what: string, l: { ok: false; reason: string }): Evaluation => ({
  status: 'Waiting',
  note: `${l.reason} while looking up ${what}; checks again later`,
});

const startsWithTag = (record: string, tag: string) => new RegExp(`^\\s*${tag}(\\s|;|$)`, 'i').test(record);

/** `k=v; k2=v2` → map; whitespace inside values (a split key) is removed. */
export function tagList(record: string): Map<string, string> {
  const tags = new Map<string, string>();
  for (const part of record.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    tags.set(part.slice(0, eq).trim().toLowerCase(), part.slice(eq + 1).replace(/\s+/g, ''));
  }
  return tags;
}

export function evaluateOwnership(lookup: Lookup<string>, token: string, verifiedElsewhere: boolean): Evaluation {
  const want = `svc-verify=${token}`;
  if (verifiedElsewhere) return { status: 'Problem', note: 'this domain is already verified by another workspace' };
  if (!lookup.ok) return waitingFor('the _svc TXT record', lookup);
  const records = lookup.records.map((r) => r.trim());
  if (records.includes(want)) return { status: 'Verified', note: null };
  if (records.some((r) => r.startsWith('svc-verify='))) {
    return { status: 'Problem', note: `the _svc TXT record holds another token; add ${want} (it can stand beside the other)` };
  }
  return { status: 'Waiting', note: records.length ? `no svc-verify= value at _svc yet; add ${want}` : null };
}

const host = (h: string) => h.toLowerCase().replace(/\.$/, '');

export function evaluateMx(lookup: Lookup<MxRecord>, mxHost: string): Evaluation {
  if (!lookup.ok) return waitingFor('the MX records', lookup);
  if (lookup.records.length === 0) return { status: 'Waiting', note: null };
  const ours = lookup.records.filter((r) => host(r.exchange) === host(mxHost));
  // Replies go to the most preferred MX: ours must be it, alone, or they never reach the inbox.
  const best = Math.min(...ours.map((r) => r.priority));
  const before = lookup.records.filter((r) => host(r.exchange) !== host(mxHost) && r.priority <= best);
  if (ours.length && before.length) {
    const list = before.map((r) => `${r.priority} ${host(r.exchange)}`).join(', ');
    return {
      status: 'Problem',
      note: `${list} is preferred to (or as preferred as) ${mxHost} at ${best}, so replies go there, not to the inbox; remove it or give it a higher number than ${best}`,
    };
  }
  if (ours.some((r) => r.priority === 10)) return { status: 'Verified', note: null };
  if (ours.length) return { status: 'Problem', note: `${mxHost} is published at priority ${ours[0]!.priority}; use priority 10` };
  const others = lookup.records.map((r) => `${r.priority} ${host(r.exchange)}`).join(', ');
  return { status: 'Problem', note: `MX points elsewhere (${others}); add 10 ${mxHost} so replies reach the inbox` };
}

const ALL = /^[+\-~?]?all$/i;

/** An SPF term as receivers read it: case and a domain's trailing dot do not matter. */
const sameTerm = (a: string, b: string) => a.toLowerCase().replace(/\.$/, '') === b.toLowerCase().replace(/\.$/, '');

/** `lookups`: the DNS look-ups the record needs (spf-lookups.ts), when counted. */
export function evaluateSpf(lookup: Lookup<string>, serviceDomain: string, lookups?: number): Evaluation {
  if (!lookup.ok) return waitingFor('the SPF record', lookup);
  const include = spfInclude(serviceDomain);
  const spf = lookup.records.filter((r) => startsWithTag(r, 'v=spf1'));
  if (spf.length === 0) return { status: 'Waiting', note: null };
  if (spf.length > 1) {
    return {
      status: 'Problem',
      note: `${spf.length} SPF records found; receivers then fail SPF for all of them: merge them into one`,
      value: mergeSpf(spf, include),
    };
  }
  const terms = spf[0]!.trim().split(/\s+/);
  const at = terms.findIndex((t) => sameTerm(t, include));
  const allAt = terms.findIndex((t) => ALL.test(t));
  const merged = mergeSpf(spf, include);
  if (at < 0) return { status: 'Problem', note: `the SPF record lacks ${include}; publish the merged record`, value: merged };
  if (allAt >= 0 && at > allAt)
    return { status: 'Problem', note: `${include} stands after ${terms[allAt]}, so it is never evaluated; move it before`, value: merged };
  if (lookups !== undefined && lookups > SPF_LOOKUP_LIMIT) {
    return {
      status: 'Problem',
      note: `the SPF record needs ${lookups} DNS look-ups; receivers stop at ${SPF_LOOKUP_LIMIT} and fail SPF for all mail (permerror): replace includes with the addresses they name (flattening) or drop unused ones`,
    };
  }
  const all = allAt >= 0 ? terms[allAt]! : null;
  // The suggested value keeps every term already there (it is the record with ours merged in).
  if (all === null) return { status: 'Recommended', note: 'the SPF record has no all term; end it with -all', value: merged };
  if (/^\+?all$/i.test(all))
    return { status: 'Problem', note: `${all} lets anyone send as this domain; end the record with -all`, value: merged };
  // The value given agrees with the note: the same record, ending with -all.
  if (all !== '-all')
    return {
      status: 'Recommended',
      note: `${all} only marks unauthorised mail; -all makes receivers refuse it`,
      value: mergeSpf(spf, include, '-all'),
    };
  return { status: 'Verified', note: null };
}

/**
 * One SPF record with our include before its all term (spec: "an existing SPF record is merged: the
 * include term goes before its all term; only one SPF record may exist").
 */
export function mergeSpf(records: string[], include: string, end?: '-all'): string {
  const terms: string[] = [];
  const alls = new Set<string>();
  for (const r of records) {
    for (const t of r.trim().split(/\s+/).slice(1)) {
      if (ALL.test(t)) alls.add(t.toLowerCase());
      else if (!sameTerm(t, include) && !terms.some((x) => sameTerm(x, t))) terms.push(t);
    }
  }
  // The strictest all term of the records is kept; +all (anyone may send) never is.
  const all = end ?? ['-all', '~all', '?all'].find((a) => alls.has(a)) ?? '-all';
  return ['v=spf1', ...terms, include, all].join(' ');
}

export function evaluateDkim(lookup: Lookup<string>, publicKey: string): Evaluation {
  if (!lookup.ok) return waitingFor('the DKIM record', lookup);
  const want = dkimValue(publicKey);
  const keys = lookup.records.filter((r) => startsWithTag(r, 'v=DKIM1') || tagList(r).has('p'));
  if (keys.length === 0) return { status: 'Waiting', note: null };
  if (keys.length > 1) return { status: 'Problem', note: `${keys.length} TXT records at svc1._domainkey; keep only: ${want}` };
  const tags = tagList(keys[0]!);
  const k = tags.get('k') ?? 'rsa';
  if (k.toLowerCase() !== 'rsa') return { status: 'Problem', note: `k=${k}: the key is RSA; publish: ${want}` };
  if (!tags.get('p')) return { status: 'Problem', note: `the record has an empty p= (a revoked key); publish: ${want}` };
  if (tags.get('p') !== publicKey)
    return { status: 'Problem', note: `p= is not this domain's public key (check for a truncated or old key); publish: ${want}` };
  return { status: 'Verified', note: null };
}

/**
 * `org`: the organizational domain's record, which receivers apply when the domain has none of its
 * own (RFC 7489 §6.6.3).
 */
export function evaluateDmarc(lookup: Lookup<string>, org?: { domain: string; lookup: Lookup<string> }): Evaluation {
  if (!lookup.ok) return waitingFor('the DMARC record', lookup);
  const dmarc = lookup.records.filter((r) => startsWithTag(r, 'v=DMARC1'));
  if (dmarc.length === 0 && org?.lookup.ok && org.lookup.records.some((r) => startsWithTag(r, 'v=DMARC1'))) {
    const inherited = evaluateDmarc(org.lookup);
    const from = `applied from the organizational domain ${org.domain} (_dmarc.${org.domain}), as receivers do`;
    return { ...inherited, note: inherited.note ? `${inherited.note}; ${from}` : from };
  }
  if (dmarc.length === 0) return { status: 'Waiting', note: null };
  if (dmarc.length > 1)
    return { status: 'Problem', note: `${dmarc.length} DMARC records: receivers ignore them all; keep one, e.g. v=DMARC1; p=quarantine` };
  const p = tagList(dmarc[0]!).get('p')?.toLowerCase();
  if (p === 'quarantine' || p === 'reject') return { status: 'Verified', note: null };
  if (p === 'none') return { status: 'Recommended', note: 'p=none passes, but BIMI needs p=quarantine or p=reject' };
  return {
    status: 'Problem',
    note: `the DMARC record needs p=none, p=quarantine or p=reject (found ${p ? `p=${p}` : 'no p='}); e.g. v=DMARC1; p=quarantine`,
  };
}

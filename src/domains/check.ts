// src/domains/: sending domains, their DNS records and checks.
//
// One DNS check of a domain: the five look-ups in parallel, each evaluated by its rule, and the
// changes against the previous check.
import type { Domain, RecordChange, RecordCheck } from '../model/domain.js';
import type { DnsClient } from './dns.js';
import { countSpfLookups } from './spf-lookups.js';
import { evaluateDkim, evaluateDmarc, evaluateMx, evaluateOwnership, evaluateSpf, type Evaluation } from './evaluate.js';
import type { ServiceNames } from './records.js';
import { DKIM_SELECTOR, passes, PURPOSES, type Purpose } from '../model/domain.js';

export interface CheckResult {
  records: RecordCheck[];
  changes: RecordChange[];
  passed: boolean;
  /** Whether our DKIM key is published; null when DNS did not answer (a time-out says nothing). */
  dkimPublished: boolean | null;
  /** The records DNS gave no answer for (a time-out, a refusal, SERVFAIL), with why: not checked. */
  unanswered: Array<{ purpose: string; reason: string }>;
}

export async function checkDomain(
  d: Domain,
  dns: DnsClient,
  names: ServiceNames,
  verifiedElsewhere: boolean,
  at: string,
): Promise<CheckResult> {
  const [ownership, mx, apex, dkim, dmarc] = await Promise.all([
    dns.txt(`_svc.${d.domain}`),
    dns.mx(d.domain),
    dns.txt(d.domain),
    dns.txt(`${DKIM_SELECTOR}._domainkey.${d.domain}`),
    dns.txt(`_dmarc.${d.domain}`),
  ]);
  // What receivers also look at: the look-ups the SPF record costs them, and the organizational
  // domain's DMARC record when this domain has none of its own.
  const spfRecord = apex.ok ? apex.records.find((r) => /^\s*v=spf1(\s|$)/i.test(r)) : undefined;
  const lookups = spfRecord ? await countSpfLookups(spfRecord, dns) : undefined;
  // tldts (the public-suffix list, 35 ms to load) is loaded by a check, not by every command.
  const orgDomain = (await import('tldts')).getDomain(d.domain);
  const ownDmarc = dmarc.ok && dmarc.records.some((r) => /^\s*v=DMARC1(\s|;|$)/i.test(r));
  const org =
    !ownDmarc && orgDomain && orgDomain !== d.domain ? { domain: orgDomain, lookup: await dns.txt(`_dmarc.${orgDomain}`) } : undefined;
  const evaluations: Record<Purpose, Evaluation> = {
    ownership: evaluateOwnership(ownership, d.token, verifiedElsewhere),
    mx: evaluateMx(mx, names.mxHost),
    spf: evaluateSpf(apex, names.serviceDomain, lookups),
    dkim: evaluateDkim(dkim, d.dkim_public_key),
    dmarc: evaluateDmarc(dmarc, org),
  };
  const records = PURPOSES.map((purpose) => ({
    purpose,
    status: evaluations[purpose].status,
    note: evaluations[purpose].note,
    value: evaluations[purpose].value ?? null,
    checked_at: at,
  }));
  const before = new Map(d.records?.map((r) => [r.purpose, r.status]) ?? []);
  const changes = records
    .filter((r) => before.get(r.purpose) !== r.status)
    .map((r) => ({ at, purpose: r.purpose, from: before.get(r.purpose) ?? null, to: r.status, note: r.note }));
  const answers = { ownership, mx, spf: apex, dkim, dmarc };
  return {
    records,
    changes,
    passed: records.every((r) => passes(r.status)),
    dkimPublished: dkim.ok ? passes(evaluations.dkim.status) : null,
    unanswered: PURPOSES.flatMap((purpose) => {
      const l = answers[purpose];
      return l.ok ? [] : [{ purpose, reason: l.reason }];
    }),
  };
}

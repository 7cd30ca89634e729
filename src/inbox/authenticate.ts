// Who vouches for a received message: SPF for the client and envelope sender, DKIM
// signatures, DMARC for the From domain, and ARC where a chain is present, all evaluated by
// mailauth through the configured resolvers. The verdict is what svc acts on:
// - `pass`: the From domain vouches for the message: DMARC passes, or, where the domain publishes
//   no DMARC record, SPF or a DKIM signature passes for a domain aligned with it (same
//   organizational domain). Only such mail can count as a person's reply.
// - `fail`: DMARC fails. With the domain's policy `reject` (its `sp` for a subdomain) the MX refuses
//   the message at DATA with 550 5.7.1, as the domain asks; other failures are kept, marked.
// - `none`: nothing vouches for it (no SPF, no signature, nothing aligned): kept, marked.
// ARC is evaluated and reported, but trusts no sealer: it never turns a DMARC failure into a pass.
//
// Each check runs only on what it applies to (measured per 10 KB message here: the whole of
// mailauth's authenticate 217 µs, of it DKIM 69 µs and ARC 53 µs even with nothing to verify): a
// message without a DKIM signature or ARC header gets SPF and DMARC alone (about 35 µs), and the
// same Authentication-Results a full run writes for it (dkim=none).
import type * as Mailauth from 'mailauth';
import { getDomain } from 'tldts';
import { isIP } from 'node:net';
import { decodeWords } from 'postal-mime';
import type { ResolveFn } from '../domains/dns.js';
import type { InboundAuth } from '../model/inbox.js';
import { addresses, type Fields } from '../mail/header-block.js';

export interface AuthInput {
  raw: Buffer;
  /** The message's top header fields, as the MX read them (whether anything is signed; its From addresses). */
  fields: Fields;
  /** Client address, HELO name, envelope sender ('' for the null sender). */
  ip: string;
  helo: string;
  mailFrom: string;
}

export interface Authenticated {
  auth: InboundAuth;
  /** The Authentication-Results field (RFC 8601), folded, with its CRLF. */
  header: string;
}

type Authenticator = (input: AuthInput) => Promise<Authenticated>;

const org = (domain: string) => (getDomain(domain, { allowPrivateDomains: true }) ?? domain).toLowerCase();
const domainOf = (address: string) => address.slice(address.lastIndexOf('@') + 1).toLowerCase();

/**
 * mailauth, loaded by the first message to check: with its certificate and XML libraries it is
 * about 30 MB of a daemon's memory, which a daemon that receives no mail never needs.
 */
let loaded: Promise<typeof Mailauth> | null = null;
const mailauthModule = () => (loaded ??= import('mailauth'));

/** The authserv-id an Authentication-Results value names (RFC 8601 §2.2), comments skipped, lower-cased. */
export const authservOf = (value: string): string => (/^\s*(?:\([^()]*\)\s*)*([^\s;()]+)/.exec(value)?.[1] ?? '').toLowerCase();

/** `authserv` names this MX in the Authentication-Results it writes (RFC 8601 §2.5). */
export function inboundAuthenticator(resolve: ResolveFn, authserv: string): Authenticator {
  return async ({ raw, fields, ip, helo, mailFrom }) => {
    const { authenticate: mailauth, dmarc: dmarcCheck, spf: spfCheck } = await mailauthModule();
    const signed = fields.get('dkim-signature') !== undefined;
    const arcChain = fields.get('arc-seal') !== undefined || fields.get('arc-message-signature') !== undefined;
    const heloName = helo ? (isIP(helo) ? `[${helo}]` : helo) : `[${ip}]`;
    const r =
      signed || arcChain
        ? await mailauth(raw, {
            ip,
            helo,
            sender: mailFrom || undefined,
            mta: authserv,
            resolver: resolve,
            disableBimi: true,
            disableArc: !arcChain,
          } as Parameters<typeof Mailauth.authenticate>[1])
        : await unsigned();

    /** SPF and DMARC alone, in the shape of a full run's result (nothing to verify for DKIM or ARC). */
    async function unsigned() {
      const headerFrom = fields.all('from').flatMap((v) => addresses(v.includes('=?') ? decodeWords(v) : v));
      const spfResult = await spfCheck({
        ip,
        helo: heloName,
        sender: mailFrom || undefined,
        mta: authserv,
        resolver: resolve,
      } as Parameters<typeof Mailauth.spf>[0]);
      const passed = spfResult.status.result === 'pass' && spfResult.domain ? [spfResult.domain] : [];
      const dmarcResult = headerFrom.length
        ? await dmarcCheck({
            headerFrom: headerFrom.length === 1 ? headerFrom[0]! : headerFrom,
            spfDomains: passed,
            dkimDomains: [],
            resolver: resolve,
          } as Parameters<typeof Mailauth.dmarc>[0])
        : false;
      const rows = ['dkim=none (message not signed)', spfResult.info, ...(dmarcResult && dmarcResult.info ? [dmarcResult.info] : [])];
      return {
        spf: spfResult,
        dkim: { results: [], headerFrom },
        dmarc: dmarcResult,
        arc: false as const,
        headers: `Authentication-Results: ${authserv};\r\n ${rows.join(';\r\n ')}\r\n`,
      };
    }
    const spf = r.spf ? String(r.spf.status.result) : 'none';
    const dkimResults = (r.dkim.results ?? []) as Array<{ signingDomain?: string; status: { result: string } }>;
    const dkimPass = dkimResults.filter((d) => d.status.result === 'pass').map((d) => (d.signingDomain ?? '').toLowerCase());
    const dkim = dkimPass.length ? 'pass' : dkimResults.length ? String(dkimResults[0]!.status.result) : 'none';
    const dmarcResult = r.dmarc ? (r.dmarc as { status: { result: string }; policy?: string; domain?: string }) : null;
    const dmarc = dmarcResult ? String(dmarcResult.status.result) : 'none';
    const arc = r.arc ? String((r.arc as { status: { result: string } }).status.result) : 'none';
    const headerFrom = ([] as string[]).concat((r.dkim as { headerFrom?: string | string[] }).headerFrom ?? []);
    const fromDomain = headerFrom.length === 1 ? domainOf(headerFrom[0]!) : null;
    const spfDomain = r.spf ? String((r.spf as { domain?: string }).domain ?? '').toLowerCase() : '';
    let verdict: InboundAuth['verdict'];
    let why: string;
    if (!fromDomain) {
      verdict = 'none';
      why = headerFrom.length ? 'several From addresses' : 'no From address';
    } else if (dmarc === 'pass') {
      verdict = 'pass';
      why = `DMARC passes for ${fromDomain}`;
    } else if (dmarc === 'fail') {
      verdict = 'fail';
      why = `DMARC fails for ${fromDomain} (policy ${dmarcResult?.policy ?? 'none'})`;
    } else if (spf === 'pass' && spfDomain && org(spfDomain) === org(fromDomain)) {
      verdict = 'pass';
      why = `SPF passes for ${spfDomain}, aligned with ${fromDomain}`;
    } else if (dkimPass.some((d) => d && org(d) === org(fromDomain))) {
      verdict = 'pass';
      why = `a DKIM signature of ${dkimPass.find((d) => org(d) === org(fromDomain))} passes, aligned with ${fromDomain}`;
    } else {
      verdict = 'none';
      why =
        dmarc === 'temperror'
          ? `the DMARC look-up for ${fromDomain} failed`
          : `nothing authenticates ${fromDomain} (SPF ${spf}, DKIM ${dkim})`;
    }
    const policy = verdict === 'fail' ? (dmarcResult?.policy ?? null) : null;
    const header =
      r.headers.split(/\r?\n(?=\S)/).find((h) => /^authentication-results:/i.test(h)) ?? `Authentication-Results: ${authserv}; none`;
    return {
      auth: { verdict, spf, dkim, dmarc, arc, policy, from_domain: fromDomain, summary: why },
      header: `${header.replace(/\r?\n$/, '').replace(/\r?\n/g, '\r\n')}\r\n`,
    };
  };
}

/** Nothing evaluated (an MX built without an authenticator, as in unit tests of the classifier). */
export const NOT_EVALUATED: InboundAuth = {
  verdict: 'none',
  spf: 'none',
  dkim: 'none',
  dmarc: 'none',
  arc: 'none',
  policy: null,
  from_domain: null,
  summary: 'not evaluated',
};

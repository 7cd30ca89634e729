// DKIM signing with the sender domain's key (selector svc1, relaxed/relaxed), by nodemailer's
// signer: its header parser and its header canonicalization and signature (lib/dkim/sign). Keys
// are parsed once into KeyObjects and cached: parsing a PEM costs as much as a signature
// (DESIGN.md "Measured limits").
import { createHash, createPrivateKey, createSign, type KeyObject } from 'node:crypto';
import { foldLines } from 'nodemailer/lib/mime-funcs';
import MessageParser from 'nodemailer/lib/dkim/message-parser';
import dkimSign from 'nodemailer/lib/dkim/sign';
import type { Domain } from '../model/domain.js';
import { DKIM_SELECTOR } from '../model/domain.js';

/** The headers the signature covers (From, To, Cc, Subject, Date, Message-ID, MIME headers). */
export const SIGNED_HEADERS = 'From:To:Cc:Subject:Date:Message-ID:MIME-Version:Content-Type:Content-Transfer-Encoding:Feedback-ID';
/**
 * Named once more than they occur (over-signed, RFC 6376 §8.15): a From, Subject or unsubscribe
 * field added on the way then breaks the signature instead of riding on it (an added
 * `List-Unsubscribe: <https://evil…>` would otherwise be believed by a mailbox provider's
 * unsubscribe button). An instance that does not exist is hashed as nothing, so the hash input is
 * the same; only h= lists them twice. Each is over-signed only where the message has it.
 */
const SIGNED_LIST = new Set(SIGNED_HEADERS.toLowerCase().split(':'));
export const OVERSIGNED_HEADERS = ['from', 'subject', 'list-unsubscribe', 'list-unsubscribe-post'];

/** RFC 6376 §3.4.2 relaxed header value (nodemailer's rule, which it does not export). */
const relaxedValue = (line: string) =>
  line
    .slice(line.indexOf(':') + 1)
    .replace(/\r?\n/g, '')
    .replace(/[ \t]+/g, ' ')
    .replace(/^ | $/g, '');

const CRLF = '\r\n';

/**
 * The relaxed body canonicalization of RFC 6376 section 3.4.4, on the whole body at once: every
 * line ends with CRLF, runs of SP and HTAB become one SP, whitespace at a line's end goes, and
 * empty lines at the end of the body are ignored (a non-empty body ends with one CRLF). The same
 * result as nodemailer's RelaxedBody stream, whose byte loop in JavaScript cost as much as the RSA
 * signature on a 20 KB message; these passes run in the regexp engine and each is linear.
 */
export function relaxedBody(body: Buffer): string {
  let s = body.toString('latin1');
  // Each pass only touches what it changes: a bare LF, a run of whitespace that is not one SP.
  if (/(?<!\r)\n/.test(s)) s = s.replace(/\r?\n/g, CRLF);
  s = s.replace(/[ \t]{2,}|\t/g, ' ').replaceAll(' \r\n', CRLF);
  // Empty (or whitespace-only) lines at the end, and a last line's trailing space, go.
  let end = s.length;
  for (;;) {
    if (end >= 2 && s.charCodeAt(end - 1) === 0x0a && s.charCodeAt(end - 2) === 0x0d) end -= 2;
    else if (end > 0 && s.charCodeAt(end - 1) === 0x20) end--;
    else break;
  }
  return end === 0 ? '' : s.slice(0, end) + CRLF;
}

/** What signing needs of a domain: a thread is handed this much, not its records and history. */
export type SigningDomain = Pick<Domain, 'id' | 'domain' | 'dkim_private_key' | 'dkim_verified'>;

export const signingDomain = (d: Domain): SigningDomain => ({
  id: d.id,
  domain: d.domain,
  dkim_private_key: d.dkim_private_key,
  dkim_verified: d.dkim_verified,
});

/** The `dkim` fault's text (the domain re-check, or a delivery that meets such a domain first). */
export const unsignedDetail = (domains: string[]) =>
  `the DKIM record of ${domains.join(', ')} no longer checks out: mail from ${domains.length > 1 ? 'them' : 'it'} goes unsigned until it is fixed (svc domains show)`;

/** The `dkim_key` fault's text: a stored private key that cannot be decrypted. */
export const damagedKeyDetail = (domains: string[]) =>
  `the stored DKIM private key of ${domains.join(', ')} cannot be decrypted (damaged): mail from ${domains.length > 1 ? 'them' : 'it'} goes unsigned; restore svc.json (or the domains row) from a backup, or remove and add the domain again for a new key`;

export class DkimSigner {
  #keys = new Map<string, { pem: string; key: KeyObject }>();

  #key(d: SigningDomain): KeyObject {
    const hit = this.#keys.get(d.id);
    if (hit && hit.pem === d.dkim_private_key) return hit.key;
    const key = createPrivateKey(d.dkim_private_key);
    this.#keys.set(d.id, { pem: d.dkim_private_key, key });
    return key;
  }

  /**
   * Signs when the last check found the domain's key published at svc1._domainkey: a five-record
   * domain from its verification on, a legacy domain once the record checks out. A domain whose
   * record broke later (removed, truncated, revoked) is left unsigned rather than signed with a key
   * receivers cannot find (a dkim=fail is worse than none under DMARC, which the aligned SPF of the
   * return path still passes); the daemon shows it as a `dkim` fault.
   */
  shouldSign(d: SigningDomain): boolean {
    return d.dkim_verified;
  }

  /** The message with a DKIM-Signature header in front; `also` names further headers to cover (a composition step's). */
  sign(raw: Buffer, d: SigningDomain, also: readonly string[] = []): Buffer {
    // Headers end at the first empty line; a message without one is all headers.
    const blank = raw.indexOf('\r\n\r\n');
    const headerEnd = blank < 0 ? raw.length : blank + 2;
    const parser = new MessageParser() as MessageParser & { rawHeaders: Buffer; parseHeaders(): MessageParser.Header[] };
    parser.rawHeaders = raw.subarray(0, headerEnd);
    const headers = parser.parseHeaders();
    const bodyHash = createHash('sha256')
      .update(relaxedBody(blank < 0 ? Buffer.alloc(0) : raw.subarray(blank + 4)), 'latin1')
      .digest('base64');
    // nodemailer canonicalizes the headers (one instance of each name); the tag list and the
    // signature are ours, so that h= can name From and Subject twice.
    const canon = (
      dkimSign as unknown as { relaxedHeaders(h: MessageParser.Header[], names: string): { headers: string; fieldNames: string } }
    ).relaxedHeaders(
      headers,
      also.length ? [SIGNED_HEADERS, ...also.filter((n) => !SIGNED_LIST.has(n.toLowerCase()))].join(':') : SIGNED_HEADERS,
    );
    const present = canon.fieldNames.split(':');
    const names = [...present, ...OVERSIGNED_HEADERS.filter((n) => present.includes(n))].join(':');
    const tags = [
      'v=1',
      'a=rsa-sha256',
      'c=relaxed/relaxed',
      `d=${d.domain}`,
      'q=dns/txt',
      `s=${DKIM_SELECTOR}`,
      `bh=${bodyHash}`,
      `h=${names}`,
    ].join('; ');
    const head = foldLines(`DKIM-Signature: ${tags}`, 76) + ';\r\n b=';
    const signer = createSign('RSA-SHA256');
    signer.update(canon.headers + 'dkim-signature:' + relaxedValue(head), 'latin1');
    const b = signer.sign(this.#key(d), 'base64');
    const field = head + b.replace(/(^.{73}|.{75}(?!\r?\n|\r))/g, '$&\r\n ').trim();
    return Buffer.concat([Buffer.from(field + CRLF, 'latin1'), raw]);
  }
}

// Domain names as svc accepts them: IDNs normalised to punycode, lowercase, no trailing dot; never
// an IP address, a bare TLD, or the service's own domain.
import { domainToASCII } from 'node:url';
import { isIP } from 'node:net';
import { SvcError } from '../errors.js';

const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

/** Checks an ASCII (punycode) host name; returns the reason it is not one, or null. */
export function hostNameProblem(ascii: string): string | null {
  if (ascii.length === 0 || ascii.length > 253) return 'a domain name has 1 to 253 characters';
  const labels = ascii.split('.');
  for (const l of labels) if (!LABEL.test(l)) return `'${l}' is not a valid label`;
  if (labels.length < 2) return 'a bare top-level domain cannot send mail';
  if (/^\d+$/.test(labels[labels.length - 1]!)) return 'the top-level label cannot be numeric';
  return null;
}

/**
 * A name already in the form toAsciiDomain returns: lowercase letters, digits and inner hyphens in
 * labels of 1 to 63, at least two labels, the last starting with a letter (so never a number, which
 * the URL standard would read as an IPv4 address), and no `xn--` label (whose punycode must be
 * checked). For these the conversion is the identity and the checks pass, so it is skipped: this is
 * every recipient the MX and the API see but internationalised ones, on their hot paths.
 */
const PLAIN_HOST = /^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

/** The ASCII form of a domain, or null when it is not a valid host name. */
export function toAsciiDomain(input: string): string | null {
  if (input.length <= 253 && PLAIN_HOST.test(input) && !input.includes('xn--')) return input;
  const trimmed = input.trim().replace(/\.$/, '');
  if (!trimmed || trimmed.length > 253 * 4 || isIP(trimmed)) return null;
  const ascii = domainToASCII(trimmed).toLowerCase();
  return ascii && hostNameProblem(ascii) === null ? ascii : null;
}

const within = (name: string, parent: string) => name === parent || name.endsWith('.' + parent);

export function normalizeDomain(input: string, service: { serviceDomain: string; mxHost: string }): string {
  const trimmed = input.trim().replace(/\.$/, '');
  if (isIP(trimmed) || isIP(trimmed.replace(/^\[|\]$/g, '')))
    throw new SvcError('invalid_argument', `'${input}' is an IP address, not a domain`);
  const ascii = domainToASCII(trimmed).toLowerCase();
  if (!ascii) throw new SvcError('invalid_argument', `'${input}' is not a valid domain name`);
  const problem = hostNameProblem(ascii);
  if (problem) throw new SvcError('invalid_argument', `'${input}' is not a domain that can send: ${problem}`);
  if (within(ascii, service.serviceDomain) || within(ascii, service.mxHost)) {
    throw new SvcError('invalid_argument', `'${ascii}' belongs to the service itself (${service.serviceDomain})`);
  }
  return ascii;
}

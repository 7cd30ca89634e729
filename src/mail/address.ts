// src/mail/: email address syntax.
//
// Email addresses, parsed in linear time (no backtracking patterns) and at most 254 characters
// (RFC 5321 path limit), so a 40,000-character address is refused at once.
import { toAsciiDomain } from './names.js';

export const MAX_ADDRESS = 254;
const LOCAL = /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*$/;

export interface Mailbox {
  /** local@domain with the domain in lowercase ASCII (punycode). */
  address: string;
  local: string;
  domain: string;
}

/** A bare mailbox `local@domain`; the reason it is not one otherwise. */
export function parseMailbox(input: string): Mailbox | { error: string } {
  if (input.length > MAX_ADDRESS) return { error: `longer than ${MAX_ADDRESS} characters` };
  const at = input.lastIndexOf('@');
  if (at <= 0 || at === input.length - 1) return { error: 'expected local@domain' };
  const local = input.slice(0, at);
  if (local.length > 64) return { error: 'the part before @ is longer than 64 characters' };
  // The pattern's groups cannot overlap (a dot separates them), so matching is linear.
  if (!LOCAL.test(local)) return { error: `'${local}' is not a valid mailbox name` };
  const domain = toAsciiDomain(input.slice(at + 1));
  if (!domain) return { error: `'${input.slice(at + 1)}' is not a valid domain` };
  return { address: `${local}@${domain}`, local, domain };
}

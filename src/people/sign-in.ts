// Signing in to the web app (CONTRACT.md "The web app"): a one-time link sets the password and
// signs the person in; afterwards email and password. A session is a random token in a cookie of
// which the store keeps only the SHA-256, so it can be ended at once (sign-out, `svc users reset`,
// `svc users remove`). Attempts are limited in the store's sliding windows (they hold across daemons
// on one Postgres): per client address, per account from one address, and per account from
// everywhere over a short window. The last slows guessing down without locking the person out:
// whoever knows an email can no longer shut its owner out of the app for a quarter of an hour.
import { createHmac } from 'node:crypto';
import { SvcError } from '../errors.js';
import type { DepsOf } from '../deps.js';
import type { Account, Membership } from '../model/person.js';
import { hashPassword, passwordMatches } from './password.js';
import { tokenHash } from './people.js';

/** How long a session lasts without signing in again. */
export const SESSION_DAYS = 14;
/** Sign-in attempts per client address, and per account from one address, in SIGN_IN_WINDOW_MS. */
export const SIGN_IN_PER_ADDRESS = 20;
export const SIGN_IN_PER_ACCOUNT_AND_ADDRESS = 5;
export const SIGN_IN_WINDOW_MS = 15 * 60_000;
/** Sign-in attempts per account from everywhere in SIGN_IN_SLOW_MS: a minute's wait at worst, never a lock-out. */
export const SIGN_IN_PER_ACCOUNT = 5;
export const SIGN_IN_SLOW_MS = 60_000;

export interface SignedIn {
  account: Account;
  memberships: Membership[];
}

/** The token a signed-in form carries against cross-site requests: derived from the session's own secret token, so another site cannot make it. */
export const formToken = (sessionToken: string) => createHmac('sha256', sessionToken).update('svc app form').digest('base64url');

export function signInService({ store, clock, random, bus }: DepsOf<'people' | 'rateLimit'>) {
  async function open(account: Account): Promise<string> {
    const token = random.bytes(32).toString('base64url');
    const now = clock.now();
    await store.people.createSession({
      token_hash: tokenHash(token),
      account_id: account.id,
      created_at: now.toISOString(),
      expires_at: new Date(now.getTime() + SESSION_DAYS * 86_400_000).toISOString(),
    });
    await store.people.signedIn(account.id, now.toISOString());
    return token;
  }

  async function throttle(key: string, limit: number, windowMs: number): Promise<void> {
    const r = await store.rateLimit.hit(key, clock.now().toISOString(), windowMs, limit, 1);
    if (r.granted === 0) {
      const seconds = Math.max(1, Math.ceil(r.retryAfterMs / 1000));
      const minutes = Math.ceil(seconds / 60);
      const wait = seconds <= 60 ? `${seconds} second${seconds === 1 ? '' : 's'}` : `${minutes} minute${minutes === 1 ? '' : 's'}`;
      throw new SvcError('rate_limited', `too many sign-in attempts: try again in ${wait}`, {
        headers: { 'retry-after': String(Math.ceil(r.retryAfterMs / 1000)) },
      });
    }
  }

  return {
    /** Whose link this is, while it can be used (the page asks before anything happens). */
    linkHolder: (token: string) => store.people.peekLink(tokenHash(token), clock.now().toISOString()),

    /** Uses the link: the password is set, every other session ends, and a new session starts (its token). */
    async choosePassword(token: string, password: string): Promise<{ account: Account; session: string }> {
      const hashed = await hashPassword(password);
      const account = await store.people.useLink(tokenHash(token), clock.now().toISOString());
      if (!account) throw new SvcError('not_found', 'this sign-in link is not valid: it was used, it expired, or a newer one replaced it');
      await store.people.setPassword(account.id, hashed);
      await store.people.endSessions(account.id);
      bus?.publish('sessions');
      return { account, session: await open(account) };
    },

    /** Email and password from `address`: a new session's token, or sign_in_failed / rate_limited. */
    async signIn(email: string, password: string, address: string): Promise<{ account: Account; session: string }> {
      const normalized = email.trim().toLowerCase().slice(0, 320);
      await throttle(`signin:address:${address}`, SIGN_IN_PER_ADDRESS, SIGN_IN_WINDOW_MS);
      await throttle(`signin:pair:${address}:${normalized}`, SIGN_IN_PER_ACCOUNT_AND_ADDRESS, SIGN_IN_WINDOW_MS);
      await throttle(`signin:account:${normalized}`, SIGN_IN_PER_ACCOUNT, SIGN_IN_SLOW_MS);
      const account = await store.people.account(normalized);
      if (!(await passwordMatches(account?.password_hash ?? null, password)) || !account)
        throw new SvcError('sign_in_failed', 'wrong email or password');
      return { account, session: await open(account) };
    },

    /** The person of a session cookie's token, or null (unknown, ended or expired). */
    async session(token: string): Promise<SignedIn | null> {
      const s = await store.people.session(tokenHash(token), clock.now().toISOString());
      const account = s ? await store.people.accountById(s.account_id) : null;
      return account ? { account, memberships: await store.people.memberships(account.id) } : null;
    },

    signOut: async (token: string) => {
      await store.people.endSession(tokenHash(token));
      bus?.publish('sessions');
    },
  };
}

export type SignInService = ReturnType<typeof signInService>;

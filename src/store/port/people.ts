// The store's ports (see addresses.ts). This file: people (accounts, memberships, sign-in links,
// sessions; model/person.ts).
import type { Account, Person, Membership, Role, Session, SignInLink } from '../../model/person.js';
import type { CountLimit } from '../../model/quota.js';
import type { CountLimitRefusal } from '../../model/refusal.js';

export interface PeopleStore {
  /**
   * Makes `account` a member of the workspace with `role`; when its email has an account already,
   * that one joins (its name kept). Refused at `limit` members (seats); conflict when already a member.
   */
  add(workspaceId: string, account: Account, role: Role, limit: CountLimit, at: string): Promise<Person | CountLimitRefusal>;
  /** The workspace's people, in the order they joined. */
  list(workspaceId: string): Promise<Person[]>;
  /** One of them by email (lowercase), or null. */
  get(workspaceId: string, email: string): Promise<Person | null>;
  /** Null when not a member. Throws conflict when it would leave the workspace without an owner. */
  setRole(workspaceId: string, accountId: string, role: Role): Promise<Person | null>;
  /** Ends the membership and the account's sessions and unused links. Throws conflict for the last owner. */
  remove(workspaceId: string, accountId: string): Promise<boolean>;
  account(email: string): Promise<Account | null>;
  accountById(id: string): Promise<Account | null>;
  memberships(accountId: string): Promise<Membership[]>;
  /** Keeps a sign-in link; the account's earlier unused links end. */
  issueLink(link: SignInLink): Promise<void>;
  /** The link's account while the link is unused and unexpired, without taking it (a page that asks first). */
  peekLink(tokenHash: string, at: string): Promise<Account | null>;
  /** Takes the link once, before it expires: its account, or null (unknown, used or expired). */
  useLink(tokenHash: string, at: string): Promise<Account | null>;
  /** Sets the account's password hash; false when there is no such account. */
  setPassword(accountId: string, passwordHash: string): Promise<boolean>;
  /** Notes a sign-in (last_sign_in_at). */
  signedIn(accountId: string, at: string): Promise<void>;
  createSession(s: Session): Promise<void>;
  /** The session while it lasts, or null. */
  session(tokenHash: string, at: string): Promise<Session | null>;
  /** Ends one session (sign-out). */
  endSession(tokenHash: string): Promise<void>;
  /** Ends every session and unused link of the account (a reset, a removal); how many sessions ended. */
  endSessions(accountId: string): Promise<number>;
}

// src/people/: the people of a workspace (spec.md "The web app"; CONTRACT "svc users"). An operator
// adds a person with a role; they get a one-time sign-in link (valid SIGN_IN_LINK_HOURS) to choose
// their password in the app, never a password on the command line. Only the SHA-256 of a link's
// token is stored: the link is shown once.
import { createHash } from 'node:crypto';
import { upgradeUrlOf } from '../config.js';
import { SvcError } from '../errors.js';
import type { DepsOf } from '../deps.js';
import { parseMailbox } from '../mail/address.js';
import { ROLES, SIGN_IN_LINK_HOURS, type Person, type Role } from '../model/person.js';
import type { Workspace } from '../model/workspace.js';
import { assertWritable } from '../workspaces/trial.js';
import { createdOrLimit, limitFor } from '../workspaces/quota.js';
import type { SystemMail } from './system-mail.js';

/** Where a sign-in link's token goes: the app's page that sets the password (`{base_url}/app/`). */
export const SIGN_IN_PATH = '/app/sign-in/';

export const tokenHash = (token: string) => createHash('sha256').update(token).digest('hex');

const NAME_MAX = 200;

export function peopleService({ store, clock, random, config, log, bus }: DepsOf<'people'>, mail: SystemMail) {
  function email(input: string): string {
    const m = parseMailbox(input.trim());
    if ('error' in m) throw new SvcError('invalid_argument', `invalid email '${input.slice(0, 80)}': ${m.error}`);
    return m.address.toLowerCase();
  }

  function role(input: string): Role {
    const r = input.trim().toLowerCase();
    if (!(ROLES as readonly string[]).includes(r))
      throw new SvcError('invalid_argument', `invalid role '${input.slice(0, 40)}': owner, admin or member`);
    return r as Role;
  }

  function name(input: string | undefined): string | null {
    if (input === undefined) return null;
    const n = input.trim();
    // A display name goes into pages and mail headers: one line, printable.
    if (/[\u0000-\u001f\u007f]/.test(n)) throw new SvcError('invalid_argument', 'a name is one line of printable characters');
    if (n.length > NAME_MAX) throw new SvcError('invalid_argument', `a name is at most ${NAME_MAX} characters`);
    return n || null;
  }

  async function find(ws: Workspace, ref: string): Promise<Person> {
    const m = await store.people.get(ws.id, email(ref));
    if (!m) throw new SvcError('not_found', `${ref.trim()} is not a member of workspace '${ws.name}'`);
    return m;
  }

  /** A new one-time link for the account (earlier unused ones end): its URL, shown once. */
  async function link(accountId: string): Promise<string> {
    const token = random.bytes(32).toString('base64url');
    const now = clock.now();
    await store.people.issueLink({
      token_hash: tokenHash(token),
      account_id: accountId,
      created_at: now.toISOString(),
      expires_at: new Date(now.getTime() + SIGN_IN_LINK_HOURS * 3_600_000).toISOString(),
    });
    return `${config.baseUrl}${SIGN_IN_PATH}${token}`;
  }

  /**
   * Only an owner gives the owner role or changes an owner's. `as` is the role of the person acting
   * in the app; the operator (the CLI) has none and may do anything.
   */
  function mayTouchOwner(as: Role | undefined, ...roles: string[]): void {
    if (as !== undefined && as !== 'owner' && roles.some((r) => r.trim().toLowerCase() === 'owner'))
      throw new SvcError('forbidden', 'only an owner gives or takes the owner role');
  }

  /** The mail that tells a person they were added: with a link to choose a password, or to sign in. */
  const invitation = (ws: Workspace, m: Person, by: string | undefined, url: string | null) => ({
    to: m.email,
    subject: `${by ?? 'An administrator'} added you to ${ws.name} on svc`,
    text:
      `${by ?? 'An administrator'} added you to the workspace ${ws.name} on svc, as ${m.role === 'admin' ? 'an' : 'a'} ${m.role}.\n\n` +
      (url
        ? `Choose your password and sign in with this link (it works once, for ${SIGN_IN_LINK_HOURS} hours):\n${url}\n\n`
        : `Sign in with your email and password:\n${config.baseUrl}/app/sign-in\n\n`) +
      'If you did not expect this, you can ignore this message.\n',
  });

  return {
    /**
     * Adds a person (a seat of the plan). With a system sender they are mailed an invitation (a
     * link to choose their password, or, with a password already, a note to sign in). Without one,
     * the link is given back to show, but only where that cannot hand someone else's account over:
     * for an account this call made, or to the operator (`via: 'operator'`, the CLI). An account
     * with a password never gets a link this way (only `svc users reset` makes one).
     */
    async create(
      ws: Workspace,
      input: { email: string; role: string; name?: string },
      opts: { via: 'operator' | 'app'; by?: string; as?: Role } = { via: 'operator' },
    ): Promise<Person & { sign_in_url: string | null; mailed: boolean }> {
      assertWritable(ws, clock.now());
      mayTouchOwner(opts.as, input.role);
      const address = email(input.email);
      const r = role(input.role);
      const now = clock.now().toISOString();
      const id = random.uuid();
      const m = createdOrLimit(
        await store.people.add(
          ws.id,
          { id, email: address, name: name(input.name), password_hash: null, created_at: now, last_sign_in_at: null },
          r,
          limitFor(ws, 'seats'),
          now,
        ),
        ws,
        upgradeUrlOf(config, ws),
      );
      const hasPassword = (await store.people.accountById(m.id))?.password_hash != null;
      if (await mail.ready()) {
        const url = hasPassword ? null : await link(m.id);
        try {
          // One invitation per link (a new link is a new invitation); one note per membership.
          await mail.send(
            url ? `invite:${tokenHash(url).slice(0, 40)}` : `added:${ws.id}:${m.id}:${m.created_at}`,
            invitation(ws, m, opts.by, url),
          );
          return { ...m, sign_in_url: null, mailed: true };
        } catch (e) {
          log.warn(
            `invitation to ${m.email} not mailed (${(e as Error).message}); ${url ? 'its link is shown instead where that is safe' : 'they sign in with their password'}`,
          );
        }
      }
      const mayShow = !hasPassword && (m.id === id || opts.via === 'operator');
      return { ...m, sign_in_url: mayShow ? await link(m.id) : null, mailed: false };
    },

    list: (ws: Workspace) => store.people.list(ws.id),

    /** `as`: the acting person's role in the app (mayTouchOwner). */
    async setRole(ws: Workspace, ref: string, input: string, as?: Role): Promise<Person> {
      const m = await find(ws, ref);
      mayTouchOwner(as, input, m.role);
      const updated = await store.people.setRole(ws.id, m.id, role(input));
      if (!updated) throw new SvcError('not_found', `${ref.trim()} is not a member of workspace '${ws.name}'`);
      return updated;
    },

    /** Ends the person's sessions and links, and makes a new link. */
    async reset(ws: Workspace, ref: string): Promise<{ email: string; sign_in_url: string }> {
      const m = await find(ws, ref);
      await store.people.endSessions(m.id);
      bus?.publish('sessions');
      return { email: m.email, sign_in_url: await link(m.id) };
    },

    async remove(ws: Workspace, ref: string, as?: Role): Promise<{ email: string; removed: true }> {
      const m = await find(ws, ref);
      mayTouchOwner(as, m.role);
      if (!(await store.people.remove(ws.id, m.id)))
        throw new SvcError('not_found', `${ref.trim()} is not a member of workspace '${ws.name}'`);
      bus?.publish('sessions');
      return { email: m.email, removed: true };
    },
  };
}

export type PeopleService = ReturnType<typeof peopleService>;

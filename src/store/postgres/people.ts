// Postgres: people (accounts, memberships, sign-in links, sessions). A workspace's membership
// changes lock its row, so the seats count and the last-owner rule hold across daemons.
import type pg from 'pg';
import { SvcError } from '../../errors.js';
import { LAST_OWNER, type Account, type Person, type Membership, type Session } from '../../model/person.js';
import type { PeopleStore } from '../port/people.js';
import { iso, type PgDb, type Row } from './db.js';
import { underLimit } from './domains.js';

type AccountRow = Row<Account, 'created_at' | 'last_sign_in_at'>;
type PersonRow = Row<Person, 'created_at' | 'last_sign_in_at'>;

const ACCOUNT_COLS = 'id, email, name, password_hash, created_at, last_sign_in_at';
const toAccount = (r: AccountRow): Account => ({
  id: r.id,
  email: r.email,
  name: r.name,
  password_hash: r.password_hash,
  created_at: r.created_at.toISOString(),
  last_sign_in_at: iso(r.last_sign_in_at),
});
const toMember = (r: PersonRow): Person => ({
  id: r.id,
  email: r.email,
  name: r.name,
  role: r.role,
  created_at: r.created_at.toISOString(),
  last_sign_in_at: iso(r.last_sign_in_at),
});
const MEMBERS = `SELECT a.id, a.email, a.name, m.role, m.created_at, a.last_sign_in_at FROM memberships m JOIN accounts a ON a.id = m.account_id`;

/** Throws conflict when the account is the workspace's only owner (its row is locked by the caller). */
async function notLastOwner(c: pg.PoolClient, workspaceId: string, accountId: string): Promise<void> {
  const r = await c.query<{ others: string }>(
    `SELECT count(*) FILTER (WHERE account_id <> $2) AS others FROM memberships WHERE workspace_id = $1 AND role = 'owner'`,
    [workspaceId, accountId],
  );
  if (Number(r.rows[0]!.others) === 0) throw new SvcError('conflict', LAST_OWNER);
}

const lockWorkspace = async (c: pg.PoolClient, workspaceId: string) => {
  if ((await c.query('SELECT 1 FROM workspaces WHERE id = $1 FOR UPDATE', [workspaceId])).rowCount === 0)
    throw new SvcError('not_found', 'workspace not found');
};

export function pgPeople(db: PgDb): PeopleStore {
  const member = async (c: pg.PoolClient | PgDb, workspaceId: string, accountId: string): Promise<Person | null> => {
    const text = `${MEMBERS} WHERE m.workspace_id = $1 AND m.account_id = $2`;
    const rows =
      'query' in c
        ? (await c.query<PersonRow>(text, [workspaceId, accountId])).rows
        : await c.rows<PersonRow>(text, [workspaceId, accountId]);
    return rows[0] ? toMember(rows[0]) : null;
  };
  return {
    add: async (workspaceId, account, role, limit, at) =>
      db.tx(async (c) => {
        const refused = await underLimit(c, workspaceId, 'memberships', 'seats', limit);
        if (refused) return refused;
        await c.query(`INSERT INTO accounts (${ACCOUNT_COLS}) VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (email) DO NOTHING`, [
          account.id,
          account.email,
          account.name,
          account.password_hash,
          account.created_at,
          account.last_sign_in_at,
        ]);
        const { id } = (await c.query<{ id: string }>('SELECT id FROM accounts WHERE email = $1', [account.email])).rows[0]!;
        const r = await c.query(
          `INSERT INTO memberships (workspace_id, account_id, role, created_at) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING`,
          [workspaceId, id, role, at],
        );
        if (r.rowCount === 0) throw new SvcError('conflict', `${account.email} is a member of this workspace already`);
        return (await member(c, workspaceId, id))!;
      }),
    list: async (workspaceId) =>
      (await db.rows<PersonRow>(`${MEMBERS} WHERE m.workspace_id = $1 ORDER BY m.seq`, [workspaceId])).map(toMember),
    get: async (workspaceId, email) => {
      const [r] = await db.rows<PersonRow>(`${MEMBERS} WHERE m.workspace_id = $1 AND a.email = $2`, [workspaceId, email]);
      return r ? toMember(r) : null;
    },
    setRole: async (workspaceId, accountId, role) =>
      db.tx(async (c) => {
        await lockWorkspace(c, workspaceId);
        const now = (
          await c.query<{ role: string }>('SELECT role FROM memberships WHERE workspace_id = $1 AND account_id = $2', [
            workspaceId,
            accountId,
          ])
        ).rows[0];
        if (!now) return null;
        if (now.role === 'owner' && role !== 'owner') await notLastOwner(c, workspaceId, accountId);
        await c.query('UPDATE memberships SET role = $3 WHERE workspace_id = $1 AND account_id = $2', [workspaceId, accountId, role]);
        return member(c, workspaceId, accountId);
      }),
    remove: async (workspaceId, accountId) =>
      db.tx(async (c) => {
        await lockWorkspace(c, workspaceId);
        const now = (
          await c.query<{ role: string }>('SELECT role FROM memberships WHERE workspace_id = $1 AND account_id = $2', [
            workspaceId,
            accountId,
          ])
        ).rows[0];
        if (!now) return false;
        if (now.role === 'owner') await notLastOwner(c, workspaceId, accountId);
        await c.query('DELETE FROM memberships WHERE workspace_id = $1 AND account_id = $2', [workspaceId, accountId]);
        await c.query('DELETE FROM sessions WHERE account_id = $1', [accountId]);
        await c.query('DELETE FROM signin_links WHERE account_id = $1', [accountId]);
        return true;
      }),
    account: async (email) => {
      const [r] = await db.rows<AccountRow>(`SELECT ${ACCOUNT_COLS} FROM accounts WHERE email = $1`, [email]);
      return r ? toAccount(r) : null;
    },
    accountById: async (id) => {
      const [r] = await db.rows<AccountRow>(`SELECT ${ACCOUNT_COLS} FROM accounts WHERE id = $1`, [id]);
      return r ? toAccount(r) : null;
    },
    memberships: async (accountId) =>
      (
        await db.rows<Row<Membership, 'created_at'>>(
          `SELECT workspace_id, account_id, role, created_at FROM memberships WHERE account_id = $1 ORDER BY seq`,
          [accountId],
        )
      ).map((r) => ({
        ...r,
        created_at: r.created_at.toISOString(),
      })),
    issueLink: async (link) =>
      db.tx(async (c) => {
        if ((await c.query('SELECT 1 FROM accounts WHERE id = $1 FOR UPDATE', [link.account_id])).rowCount === 0)
          throw new SvcError('not_found', 'account not found');
        await c.query('DELETE FROM signin_links WHERE account_id = $1', [link.account_id]);
        await c.query('INSERT INTO signin_links (token_hash, account_id, created_at, expires_at) VALUES ($1, $2, $3, $4)', [
          link.token_hash,
          link.account_id,
          link.created_at,
          link.expires_at,
        ]);
      }),
    // Taken once: the DELETE decides which of two concurrent uses gets it.
    useLink: async (tokenHash, at) => {
      const [r] = await db.rows<AccountRow & { expires_at: Date }>(
        `WITH l AS (DELETE FROM signin_links WHERE token_hash = $1 RETURNING account_id, expires_at)
         SELECT ${ACCOUNT_COLS.split(', ')
           .map((c) => `a.${c}`)
           .join(', ')}, l.expires_at FROM l JOIN accounts a ON a.id = l.account_id`,
        [tokenHash],
      );
      return r && r.expires_at.getTime() > Date.parse(at) ? toAccount(r) : null;
    },
    peekLink: async (tokenHash, at) => {
      const [r] = await db.rows<AccountRow>(
        `SELECT ${ACCOUNT_COLS.split(', ')
          .map((c) => `a.${c}`)
          .join(', ')} FROM signin_links l JOIN accounts a ON a.id = l.account_id WHERE l.token_hash = $1 AND l.expires_at > $2`,
        [tokenHash, at],
      );
      return r ? toAccount(r) : null;
    },
    setPassword: async (accountId, passwordHash) =>
      (await db.rows('UPDATE accounts SET password_hash = $2 WHERE id = $1 RETURNING 1', [accountId, passwordHash])).length > 0,
    signedIn: async (accountId, at) => void (await db.rows('UPDATE accounts SET last_sign_in_at = $2 WHERE id = $1', [accountId, at])),
    createSession: async (s: Session) => {
      const r = await db.rows(
        `INSERT INTO sessions (token_hash, account_id, created_at, expires_at) SELECT $1, id, $3, $4 FROM accounts WHERE id = $2 RETURNING 1`,
        [s.token_hash, s.account_id, s.created_at, s.expires_at],
      );
      if (!r.length) throw new SvcError('not_found', 'account not found');
    },
    session: async (tokenHash, at) => {
      const [r] = await db.rows<Row<Session, 'created_at' | 'expires_at'>>(
        `SELECT token_hash, account_id, created_at, expires_at FROM sessions WHERE token_hash = $1 AND expires_at > $2`,
        [tokenHash, at],
      );
      return r ? { ...r, created_at: r.created_at.toISOString(), expires_at: r.expires_at.toISOString() } : null;
    },
    endSession: async (tokenHash) => void (await db.rows('DELETE FROM sessions WHERE token_hash = $1', [tokenHash])),
    endSessions: async (accountId) =>
      db.tx(async (c) => {
        await c.query('DELETE FROM signin_links WHERE account_id = $1', [accountId]);
        return (await c.query('DELETE FROM sessions WHERE account_id = $1', [accountId])).rowCount ?? 0;
      }),
  };
}

// Postgres for tests (CONTRACT.md "Environment of the test suite"): scripts/test.mjs sets
// SVC_TEST_DATABASE_URL when a server answers. Each test gets its own schema, dropped afterwards,
// so suites never see each other's rows.
import { randomBytes } from 'node:crypto';
import { createServer, connect, type Socket } from 'node:net';
import { after } from 'node:test';
import pg from 'pg';
import { loadConfig, type PostgresLocation } from '../../src/config.js';

export const TEST_DATABASE_URL = process.env.SVC_TEST_DATABASE_URL || undefined;

async function admin<T>(fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: withUser(TEST_DATABASE_URL!) });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

function withUser(url: string): string {
  const u = new URL(url);
  if (!u.username) u.username = process.env.PGUSER || 'root';
  return u.toString();
}

/** A fresh schema's store URL (`...?schema=svc_t_...`); the schema is dropped when the test ends. */
export async function freshSchemaUrl(t: { after(fn: () => unknown): void }): Promise<string> {
  const schema = `svc_t_${randomBytes(6).toString('hex')}`;
  // A daemon of the test may still be at work in the schema (hooks run in the order they were
  // added): a deadlock with it is tried again, a few times.
  t.after(async () => {
    for (let i = 0; ; i++) {
      try {
        return await admin((c) => c.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`));
      } catch (e) {
        if ((e as { code?: string }).code !== '40P01' || i >= 5) throw e;
        await new Promise((r) => setTimeout(r, 200));
      }
    }
  });
  const u = new URL(TEST_DATABASE_URL!);
  u.searchParams.set('schema', schema);
  return u.toString();
}

export function pgLocation(url: string, overrides: Partial<PostgresLocation> = {}): PostgresLocation {
  const loc = loadConfig({ store: url }, {}).store;
  if (loc.kind !== 'postgres') throw new Error('not a postgres URL');
  return { ...loc, ...overrides };
}

/** A fresh schema as an older svc left it (every migration but the last): its store URL. */
export async function behindSchemaUrl(t: { after(fn: () => unknown): void }): Promise<string> {
  const url = await freshSchemaUrl(t);
  const { createPool } = await import('../../src/store/postgres/pg-store.js');
  const { migrate, latestVersion } = await import('../../src/store/postgres/migrations.js');
  const { silentLog } = await import('../../src/log.js');
  const loc = pgLocation(url);
  const pool = createPool(loc, silentLog);
  try {
    await migrate(pool, loc.schema, (await latestVersion()) - 1);
  } finally {
    await pool.end();
  }
  return url;
}

/**
 * Migrated schemas a test of this process has finished with, emptied and handed to the next test
 * that wants one: setting one up is 37 migrations (about 300 ms, and Postgres's CPU), emptying one
 * about 100 ms. A schema is emptied when it is taken, not when its test ends: a test's daemons stop
 * in its later hooks, and by the next test every hook of the last one has run (tests of a file run
 * one at a time). The spares are dropped when the file's tests are done.
 */
const spares: string[] = [];
after(async () => {
  if (!spares.length) return;
  await admin(async (c) => {
    for (const schema of spares.splice(0)) await c.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  });
});

const schemaUrl = (schema: string) => {
  const u = new URL(TEST_DATABASE_URL!);
  u.searchParams.set('schema', schema);
  return u.toString();
};

/** Every table of a migrated schema emptied (its sequences restarted), the migrations' record kept. */
async function emptied(schema: string): Promise<void> {
  await admin(async (c) => {
    const tables = (
      await c.query<{ t: string }>(`SELECT tablename AS t FROM pg_tables WHERE schemaname = $1 AND tablename <> 'svc_migrations'`, [schema])
    ).rows.map((r) => `${schema}."${r.t}"`);
    if (tables.length) await c.query(`TRUNCATE ${tables.join(', ')} RESTART IDENTITY CASCADE`);
  });
}

/** A schema with every migration applied and no rows: its store URL, as freshSchemaUrl gives. */
export async function migratedSchemaUrl(t: { after(fn: () => unknown): void }): Promise<string> {
  const spare = spares.pop();
  if (spare) {
    await emptied(spare);
    t.after(() => spares.push(spare));
    return schemaUrl(spare);
  }
  const schema = `svc_t_${randomBytes(6).toString('hex')}`;
  const url = schemaUrl(schema);
  const { PgStore } = await import('../../src/store/postgres/pg-store.js');
  const { silentLog } = await import('../../src/log.js');
  const store = PgStore.create(pgLocation(url), { log: silentLog });
  try {
    await store.migrate();
  } finally {
    await store.close();
  }
  t.after(() => spares.push(schema));
  return url;
}

/** A TCP proxy to the test Postgres that a test can cut and restore, to play an outage. */
/** A transaction's COMMIT as it goes to Postgres: a simple query message (`Q`, its length, the text). */
export const COMMIT_MESSAGE = Buffer.from('Q\0\0\0\x0bcommit\0', 'latin1');

export async function pgProxy(t: { after(fn: () => unknown): void }) {
  const target = new URL(TEST_DATABASE_URL!);
  const sockets = new Set<Socket>();
  let down = false;
  // A frozen direction keeps what it gets and passes it on at thaw (a stopped server, a stalled link).
  const held: Record<'requests' | 'replies', Array<() => void> | null> = { requests: null, replies: null };
  /**
   * Replies are frozen once one connection's requests have held these texts, in this order
   * (freezeRepliesAfter); each connection's progress through them is its own.
   */
  let markers: Buffer[] = [];
  const progress = new WeakMap<Socket, number>();
  const relay = (from: Socket, to: Socket, dir: 'requests' | 'replies') =>
    from.on('data', (d: Buffer) => {
      const q = held[dir];
      if (q) q.push(() => to.write(d));
      else to.write(d);
      if (dir !== 'requests' || !markers.length) return;
      const at = progress.get(from) ?? 0;
      if (!d.includes(markers[at]!)) return;
      if (at + 1 < markers.length) return void progress.set(from, at + 1);
      markers = [];
      held.replies ??= [];
    });
  const server = createServer((client) => {
    if (down) return void client.destroy();
    const upstream = connect(Number(target.port || 5432), target.hostname || 'localhost');
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => {});
    }
    relay(client, upstream, 'requests');
    relay(upstream, client, 'replies');
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  t.after(
    () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  );
  const port = (server.address() as { port: number }).port;
  return {
    /** `url` with host and port pointing through the proxy. */
    through(url: string): string {
      const u = new URL(url);
      u.hostname = '127.0.0.1';
      u.port = String(port);
      return u.toString();
    },
    cut(): void {
      down = true;
      for (const s of sockets) s.destroy();
    },
    restore(): void {
      down = false;
    },
    /** Holds what goes one way (requests: to Postgres; replies: back) until thaw. */
    freeze(dir: 'requests' | 'replies'): void {
      held[dir] ??= [];
    },
    /**
     * Freezes the replies once requests holding `texts` have reached Postgres in that order
     * (`"send_contents"` then COMMIT_MESSAGE: a send's transaction that commits, whose answer is held),
     * then thaws them `ms` later.
     */
    freezeRepliesAfter(texts: Array<string | Buffer>, ms: number): void {
      markers = texts.map((x) => (typeof x === 'string' ? Buffer.from(x) : x));
      for (const s of sockets) progress.delete(s);
      const thawLater = setInterval(() => {
        if (held.replies === null) return;
        clearInterval(thawLater);
        setTimeout(() => this.thaw('replies'), ms);
      }, 5);
      thawLater.unref();
    },
    thaw(dir: 'requests' | 'replies'): void {
      const q = held[dir];
      held[dir] = null;
      for (const f of q ?? []) f();
    },
  };
}

// A file store on a small filesystem filled to the edge while sends run over REST and the relay:
// nothing is acknowledged (202, 250) that is not in the store after a restart, what was refused
// (503, 451) is not there either, and once space returns sends work again without a restart.
// Needs root to mount a tmpfs; skipped with the reason otherwise.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sending } from '../helpers/sending.js';
import { RawSmtp, plain } from '../helpers/smtp-client.js';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.js';

function mountTmpfs(dir: string, size: string): string | null {
  if (process.getuid?.() !== 0) return 'not root: cannot mount a small tmpfs';
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir], { stdio: 'pipe' });
    return null;
  } catch (e) {
    return `mount -t tmpfs failed: ${(e as Error).message.split('\n')[0]}`;
  }
}

/** Fills the filesystem until a write fails, leaving `leave` bytes or fewer. */
let fillers = 0;
async function fill(dir: string, leave: number): Promise<string> {
  const path = join(dir, `filler-${fillers++}`);
  const free = () => Number(execFileSync('df', ['--output=avail', '-B1', dir]).toString().split('\n')[1]);
  await writeFile(path, Buffer.alloc(Math.max(0, free() - leave)));
  return path;
}

test('a full disk: no acknowledgement without the record, refusals leave nothing, recovery without a restart', async (t) => {
  const mnt = await mkdtemp(join(tmpdir(), 'svc-tmpfs-'));
  const why = mountTmpfs(mnt, '8m');
  t.after(async () => {
    if (!why) execFileSync('umount', ['-l', mnt]);
    await rm(mnt, { recursive: true, force: true });
  });
  if (why) return t.skip(why);
  const dir = join(mnt, 'store');
  await mkdir(dir);
  const s = await sending(t, { store: { kind: 'file', dir }, deliver: false });
  const relayUrl = s.daemon.url('relay');
  const body = (i: number) => ({ from: 'hello@acme.test', to: [`r${i}@rcpt.test`], subject: `n${i}`, body_text: 'x'.repeat(2000) });
  // Warm: the database and its write-ahead log exist.
  assert.equal((await s.post(body(0))).status, 202);

  const filler = await fill(mnt, 40_000);
  const accepted = new Set<string>(['n0']);
  const refused = new Set<string>();
  const statuses = new Map<number, number>();
  const relaySend = async (i: number): Promise<string> => {
    const { client } = await RawSmtp.open(relayUrl);
    try {
      await client.cmd('EHLO x');
      await client.cmd(`AUTH PLAIN ${plain(s.key)}`);
      await client.cmd('MAIL FROM:<hello@acme.test>');
      await client.cmd(`RCPT TO:<r${i}@rcpt.test>`);
      await client.cmd('DATA');
      return await client.cmd(`Subject: n${i}\r\nTo: r${i}@rcpt.test\r\n\r\n${'y'.repeat(2000)}\r\n.`);
    } finally {
      client.destroy();
    }
  };
  for (let i = 1; i <= 200; i += 10) {
    await Promise.all(
      Array.from({ length: 10 }, async (_, k) => {
        const n = i + k;
        if (n % 5 === 0) {
          const reply = await relaySend(n);
          if (reply.startsWith('250 2.0.0 OK: queued as ')) accepted.add(`n${n}`);
          else {
            assert.equal(reply, '451 4.3.0 Queue failure, retry later', `relay n${n}`);
            refused.add(`n${n}`);
          }
          return;
        }
        const r = await s.post(body(n));
        statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
        if (r.status === 202) accepted.add(`n${n}`);
        else {
          assert.equal(r.status, 503, JSON.stringify(r.body));
          refused.add(`n${n}`);
        }
      }),
    );
  }
  console.log(
    `# full disk: ${accepted.size} accepted, ${refused.size} refused (REST statuses ${JSON.stringify(Object.fromEntries(statuses))})`,
  );
  assert.ok(refused.size > 100, `most sends were refused once the disk was full (${refused.size})`);

  // Admin writes (svc.json, replaced whole) are refused the same way, and leave nothing behind.
  // The database's writes above may have left a little room: fill what is left.
  const topUp = join(mnt, `filler-${fillers}`);
  await fill(mnt, 0).catch(() => {});
  await assert.rejects(
    s.daemon.service.keys.create(s.ws, { scopes: 'send' }),
    (e: Error & { kind?: string }) => e.kind === 'store_unavailable',
    'key creation refused',
  );
  assert.deepEqual(
    (await readdir(dir)).filter((f) => f.endsWith('.tmp')),
    [],
    'no temporary copy left',
  );
  await rm(topUp, { force: true });

  // Space returns: the next send is accepted at once.
  await rm(filler);
  assert.ok((await s.daemon.service.keys.create(s.ws, { scopes: 'send' })).key.startsWith('svc_'));
  const after = await s.post(body(999));
  assert.equal(after.status, 202, JSON.stringify(after.body));
  accepted.add('n999');
  assert.match(await relaySend(998), /^250 /);
  accepted.add('n998');

  // A restart reads exactly what was acknowledged.
  await s.daemon.close();
  const store = await SqliteStore.open(dir, 'admin');
  t.after(() => store.close());
  const { data } = await store.messages.list(s.ws.id, { limit: 10_000, offset: 0 });
  const kept = new Set(data.map((m) => m.subject));
  for (const a of accepted) assert.ok(kept.has(a), `acknowledged ${a} is in the store`);
  for (const r of refused) assert.ok(!kept.has(r), `refused ${r} is not in the store`);
  assert.equal(kept.size, accepted.size);
});

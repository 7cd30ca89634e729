// A file store with no daemon is held by one process at a time. A command that has to wait for it
// says at once what it waits for (the holder's command and pid); and long-running commands
// (domains verify --wait, webhooks tail) let go of it between rounds, so other commands run beside
// them instead of failing after the wait.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { SVC, svc, json } from '../helpers/cli.js';
import { tmpDir } from '../helpers/tmp.js';
import { fixtureDns } from '../helpers/dns-server.js';
import { StoreLock } from '../../src/store/file/lock.js';

test('a command waiting for the store says at once what holds it, and goes on when it is let go', async (t) => {
  const dir = await tmpDir(t);
  const base = ['--store', `file:${dir}`];
  json(await svc([...base, 'workspaces', 'create', 'acme', '--json']));
  const lock = await StoreLock.acquire(dir, 'admin', 'svc subscribers import');
  t.after(() => lock.release());
  const child = spawn(process.execPath, [SVC, ...base, 'keys', 'list', '--json'], { stdio: ['ignore', 'pipe', 'pipe'] });
  t.after(() => child.kill('SIGKILL'));
  let stdout = '';
  child.stdout.on('data', (d) => (stdout += d));
  const exited = new Promise<number | null>((r) => child.on('exit', r));
  const said = await new Promise<string>((resolve) => createInterface({ input: child.stderr }).once('line', resolve));
  assert.match(said, new RegExp(`waiting for svc subscribers import \\(pid ${process.pid}\\) to let go of ${dir} \\(up to \\d+ s\\)`));
  await lock.release();
  assert.equal(await exited, 0);
  assert.ok(Array.isArray(JSON.parse(stdout)));
});

test('domains verify --wait and webhooks tail let go of the store between rounds: other commands run beside them', async (t) => {
  const dns = await fixtureDns(t);
  const dir = await tmpDir(t);
  const base = ['--store', `file:${dir}`, '--dns-server', dns.server, '--workspace', 'acme'];
  json(await svc([...base, 'workspaces', 'create', 'acme', '--json']));
  json(await svc([...base, 'domains', 'add', 'late.test', '--json']));
  const long = [
    spawn(process.execPath, [SVC, ...base, 'domains', 'verify', 'late.test', '--wait', '60'], { stdio: ['ignore', 'ignore', 'pipe'] }),
    spawn(process.execPath, [SVC, ...base, 'webhooks', 'tail'], { stdio: ['ignore', 'ignore', 'pipe'] }),
  ];
  for (const c of long) t.after(() => c.kill('SIGKILL'));
  // Both under way: verify has said it waits for DNS.
  await new Promise<void>((resolve) => createInterface({ input: long[0]!.stderr! }).on('line', (l) => /waiting for/.test(l) && resolve()));
  for (let i = 0; i < 5; i++) {
    const r = await svc([...base, 'keys', 'create', '--name', `k${i}`, '--json']);
    assert.equal(r.code, 0, r.stderr);
    const listed = await svc([...base, 'keys', 'list', '--json']);
    assert.equal(listed.code, 0, listed.stderr);
    assert.equal(JSON.parse(listed.stdout).length, i + 1);
  }
  for (const c of long) {
    const exited = new Promise<number | null>((r) => c.once('exit', r));
    c.kill('SIGINT');
    await exited;
  }
});

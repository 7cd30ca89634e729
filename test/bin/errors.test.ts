// Errors that name the thing: the listener and the flag and variable that move it; the
// environment variable a bad value came from; a refused connection said once, with what was being
// reached; the path that cannot be written and why; the workspaces there are.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { svc, json } from '../helpers/cli.js';
import { tmpDir } from '../helpers/tmp.js';

test('a port in use names the listener, the address, and the flag and variable that move it', async (t) => {
  const taken = createServer();
  await new Promise<void>((r) => taken.listen(0, '127.0.0.1', r));
  t.after(() => taken.close());
  const port = (taken.address() as { port: number }).port;
  const base = ['--store', `file:${await tmpDir(t)}`];
  json(await svc([...base, 'workspaces', 'create', 'acme', '--json']));
  const r = await svc([...base, 'serve', '--api-port', String(port), '--relay-port', '0', '--mx-port', '0']);
  assert.equal(r.code, 1);
  assert.match(
    r.stderr,
    new RegExp(
      `^svc: the api listener cannot listen on 127\\.0\\.0\\.1:${port} \\(EADDRINUSE\\): .*; choose another with --api-port or SVC_API_PORT$`,
      'm',
    ),
  );
  const relay = await svc([...base, 'serve', '--api-port', '0', '--relay-port', String(port), '--mx-port', '0']);
  assert.equal(relay.code, 1);
  assert.match(relay.stderr, /the relay listener cannot listen on .*--relay-port or SVC_RELAY_PORT/);
});

test('a bad value is named where it was given: the variable, the flag, or the config file', async (t) => {
  const dir = await tmpDir(t);
  const base = ['--store', `file:${dir}`];
  json(await svc([...base, 'workspaces', 'create', 'acme', '--json']));
  const env = await svc([...base, 'config', 'show'], { env: { SVC_API_PORT: 'abc' } });
  assert.equal(env.code, 2);
  assert.match(env.stderr, /^svc: invalid SVC_API_PORT 'abc': a port is a whole number from 0 to 65535$/m);
  const flag = await svc([...base, 'config', 'show', '--api-port', 'abc']);
  assert.match(flag.stderr, /^svc: invalid --api-port 'abc'/m);
  const file = join(dir, 'svc.toml');
  await writeFile(file, 'api-port = "abc"\n');
  const fromFile = await svc([...base, '--config', file, 'config', 'show']);
  assert.match(fromFile.stderr, /^svc: invalid api-port \(config file\) 'abc'/m);
});

test('a refused connection is said once, with what was being reached', async () => {
  const r = await svc(['--store', 'postgres://127.0.0.1:1/nothing', 'keys', 'list']);
  assert.equal(r.code, 1);
  assert.match(
    r.stderr,
    /^svc: store unavailable: cannot connect to PostgreSQL at 127\.0\.0\.1:1 \(ECONNREFUSED\): nothing listens there/m,
  );
  assert.equal(r.stderr.match(/ECONNREFUSED/g)?.length, 1);
});

test('a store path that cannot be written says which path and why; a missing workspace lists those there are', async (t) => {
  const dir = await tmpDir(t);
  const file = join(dir, 'a-file');
  await writeFile(file, 'x');
  const r = await svc(['--store', `file:${file}`, 'workspaces', 'create', 'acme']);
  assert.equal(r.code, 1);
  assert.match(
    r.stderr,
    new RegExp(`^svc: store directory ${file} is not writable: ${file} is a file, not a directory \\(EEXIST\\)$`, 'm'),
  );

  const base = ['--store', `file:${join(dir, 'store')}`];
  json(await svc([...base, 'workspaces', 'create', 'acme', '--json']));
  json(await svc([...base, 'workspaces', 'create', 'beta', '--json']));
  const missing = await svc([...base, 'keys', 'list', '--workspace', 'gamma']);
  assert.equal(missing.code, 1);
  assert.match(missing.stderr, /^svc: workspace 'gamma' not found; the workspaces are: acme, beta$/m);
  const unnamed = await svc([...base, 'keys', 'list']);
  assert.equal(unnamed.code, 2);
  assert.match(unnamed.stderr, /^svc: --workspace is required: the workspaces are: acme, beta$/m);
});

test("a command's bad option is named as the flag it was given as, never as the REST API's query", async (t) => {
  const base = ['--store', `file:${await tmpDir(t)}`];
  json(await svc([...base, 'workspaces', 'create', 'acme', '--json']));
  const limit = await svc([...base, 'messages', 'list', '--limit', 'abc']);
  assert.equal(limit.code, 2);
  assert.equal(limit.stderr, 'svc: --limit must be a whole number of at least 1\n');
  const status = await svc([...base, 'messages', 'list', '--status', 'lost']);
  assert.equal(status.code, 2);
  assert.match(status.stderr, /^svc: --status must be queued, sent, bounced\n$/);
});

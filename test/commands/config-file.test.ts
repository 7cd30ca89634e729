// Where the settings come from for an operator: `svc init` keeps derived settings derived (the base
// URL follows the API port it asks for), `svc doctor` finds a base URL that names another port
// than the API's, the system's /etc/svc/svc.toml is read after ./svc.toml, and a misspelt key gets
// the key meant. Commands run in process (their main(argv, io)).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { run } from '../helpers/run.js';
import { json } from '../helpers/cli.js';
import { tmpDir } from '../helpers/tmp.js';

type Row = { setting: string; value: string | null; source: string | null };
const setting = async (name: string, opts: Parameters<typeof run>[1], args: string[] = []) => {
  const rows = json<{ settings: Row[] }>(await run(['config', 'show', '--json', ...args], opts)).settings;
  const r = rows.find((x) => x.setting === name)!;
  return [r.value, r.source];
};

test('svc init keeps the base URL derived (it follows a later api-port); the API port is a flag of init', async (t) => {
  const cwd = await tmpDir(t);
  const made = await run(['init', '--yes', '--service-domain', 'mail.example.com', '--api-port', '9090', '--json'], { cwd });
  assert.equal(made.code, 0, made.stderr);
  const text = readFileSync(join(cwd, 'svc.toml'), 'utf8');
  assert.match(text, /^api-port = "9090"$/m);
  assert.match(text, /^# base-url = \(http:\/\/HOST:API_PORT\)$/m, 'derived, not written as a literal');
  assert.match(text, /^# mx-host = \(mx\. \+ service domain\)$/m);
  assert.deepEqual(await setting('baseUrl', { cwd }), ['http://127.0.0.1:9090', 'default']);
  // api-port changed later in the file: the base URL follows.
  writeFileSync(join(cwd, 'svc.toml'), text.replace('api-port = "9090"', 'api-port = "9191"'));
  assert.deepEqual(await setting('baseUrl', { cwd }), ['http://127.0.0.1:9191', 'default']);
  // A base URL given to init is written.
  const other = await tmpDir(t);
  assert.equal((await run(['init', '--yes', '--base-url', 'https://mail.example.com'], { cwd: other })).code, 0);
  assert.match(readFileSync(join(other, 'svc.toml'), 'utf8'), /^base-url = "https:\/\/mail\.example\.com"$/m);
});

test('svc doctor warns when the base URL names another port than the API listens on', async (t) => {
  const cwd = await tmpDir(t);
  assert.equal((await run(['init', '--yes'], { cwd })).code, 0);
  const check = async (env: Record<string, string>) => {
    const r = await run(['doctor', '--json'], { cwd, env: { SVC_DNS_SERVERS: '127.0.0.1:1', SVC_DNS_TIMEOUT: '200', ...env } });
    return json<{ checks: Array<{ name: string; status: string; detail: string; fix: string | null }> }>({ ...r, code: 0 }).checks.find(
      (c) => c.name === 'base_url',
    )!;
  };
  const stale = await check({ SVC_API_PORT: '9090', SVC_BASE_URL: 'http://127.0.0.1:8080' });
  assert.equal(stale.status, 'warn');
  assert.match(stale.detail, /points at port 8080, but the API listens on port 9090/);
  assert.match(stale.fix!, /remove base-url/);
  const derived = await check({ SVC_API_PORT: '9090' });
  assert.doesNotMatch(derived.detail, /listens on port/);
  const proxied = await check({ SVC_API_PORT: '9090', SVC_BASE_URL: 'https://mail.example.com' });
  assert.equal(proxied.status, 'pass', 'behind a proxy the port is the proxy’s');
});

test('the system config file is read after ./svc.toml, wherever the command runs; --config, SVC_CONFIG and ./svc.toml come first', async (t) => {
  const etc = await tmpDir(t);
  const data = await tmpDir(t);
  const system = join(etc, 'svc.toml');
  writeFileSync(system, `store = "file:${data}"\nservice-domain = "system.example.com"\n`);
  const elsewhere = await tmpDir(t);
  assert.deepEqual(await setting('serviceDomain', { cwd: elsewhere, systemConfig: system }), ['system.example.com', 'file']);
  assert.equal((await run(['workspaces', 'create', 'acme'], { cwd: elsewhere, systemConfig: system })).code, 0);
  assert.equal((await run(['workspaces', 'list', '--json'], { cwd: await tmpDir(t), systemConfig: system })).stdout.includes('acme'), true);
  // ./svc.toml first.
  const here = await tmpDir(t);
  writeFileSync(join(here, 'svc.toml'), 'service-domain = "here.example.com"\n');
  assert.deepEqual(await setting('serviceDomain', { cwd: here, systemConfig: system }), ['here.example.com', 'file']);
  // --config and SVC_CONFIG first.
  const named = join(await tmpDir(t), 'named.toml');
  writeFileSync(named, 'service-domain = "named.example.com"\n');
  assert.deepEqual(await setting('serviceDomain', { cwd: here, systemConfig: system }, ['--config', named]), ['named.example.com', 'file']);
  assert.deepEqual(await setting('serviceDomain', { cwd: here, systemConfig: system, env: { SVC_CONFIG: named } }), [
    'named.example.com',
    'file',
  ]);
});

test('an unknown key in the config file names the key meant', async (t) => {
  const cwd = await tmpDir(t);
  for (const [wrong, meant] of [
    ['servce-domain', 'service-domain'],
    ['api_port', 'api-port'],
    ['base-ulr', 'base-url'],
  ]) {
    writeFileSync(join(cwd, 'svc.toml'), `${wrong} = "x"\n`);
    const r = await run(['config', 'show'], { cwd });
    assert.equal(r.code, 2);
    assert.match(r.stderr, new RegExp(`unknown setting '${wrong}' \\(did you mean ${meant}\\?\\)`));
  }
  writeFileSync(join(cwd, 'svc.toml'), 'colour = "x"\n');
  assert.doesNotMatch((await run(['config', 'show'], { cwd })).stderr, /did you mean/);
});

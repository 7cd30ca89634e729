// `svc init` and the config file: the store made, a commented file written and read by
// every command with flag > env > file > default, nothing overwritten; asked on a terminal; a read
// command never makes a store; a misspelt SVC_* variable is said once.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { svc, json } from '../helpers/cli.js';
import { tmpDir } from '../helpers/tmp.js';
import { noTerminal, onTerminal } from '../helpers/terminal.js';
import { TEST_DATABASE_URL, freshSchemaUrl } from '../helpers/pg.js';

type Row = { setting: string; value: string | null; source: string | null };
const settingOf = (rows: Row[], name: string) => {
  const r = rows.find((x) => x.setting === name)!;
  return [r.value, r.source];
};

test('file store: svc init --yes writes the store and a commented 0600 config file that every command reads, below flags and the environment', async (t) => {
  const cwd = await tmpDir(t);
  const r = await svc(
    [
      'init',
      '--yes',
      '--service-domain',
      'mail.example.com',
      '--base-url',
      'https://mail.example.com',
      '--helo-name',
      'out.example.com',
      '--json',
    ],
    { cwd },
  );
  assert.equal(r.code, 0, r.stderr);
  const made = json(r);
  const file = join(cwd, 'svc.toml');
  assert.deepEqual(Object.keys(made).sort(), ['config', 'store']);
  assert.equal(made.config, file);
  assert.match(made.store, new RegExp(`^file:${join(cwd, 'svc-data')}`));
  assert.ok(existsSync(join(cwd, 'svc-data', 'svc.json')), 'the store was made');
  assert.equal(statSync(file).mode & 0o777, 0o600, 'the file may hold a smarthost password');
  const text = readFileSync(file, 'utf8');
  assert.match(text, /^service-domain = "mail\.example\.com"$/m);
  assert.match(text, /^# mx-host = \(mx\. \+ service domain\)$/m, 'the MX host stays derived from the service domain');
  assert.match(text, /^# api-port = "8080"$/m, 'settings not chosen are there, commented out with their default');
  assert.doesNotMatch(text, /encryption-key =/, 'a secret only the environment may hold is never written');

  // Every command reads it from the working directory: flag > env > file > default.
  const rows = (args: string[], env: Record<string, string> = {}) =>
    svc(['config', 'show', '--json', ...args], { cwd, env }).then((x) => json(x).settings as Row[]);
  const fromFile = await rows([]);
  assert.deepEqual(settingOf(fromFile, 'serviceDomain'), ['mail.example.com', 'file']);
  assert.deepEqual(settingOf(fromFile, 'baseUrl'), ['https://mail.example.com', 'file']);
  assert.deepEqual(settingOf(fromFile, 'heloName'), ['out.example.com', 'file']);
  assert.deepEqual(settingOf(fromFile, 'apiPort'), ['8080', 'default']);
  assert.deepEqual(settingOf(await rows([], { SVC_SERVICE_DOMAIN: 'env.example.com' }), 'serviceDomain'), ['env.example.com', 'env']);
  assert.deepEqual(
    settingOf(await rows(['--service-domain', 'flag.example.com'], { SVC_SERVICE_DOMAIN: 'env.example.com' }), 'serviceDomain'),
    ['flag.example.com', 'flag'],
  );
  const human = await svc(['config', 'show'], { cwd });
  assert.match(human.stdout, new RegExp(`config file: ${file}`));

  // The store comes from the file too, wherever the command runs with --config.
  assert.equal((await svc(['workspaces', 'create', 'acme', '--json'], { cwd })).code, 0);
  const elsewhere = await tmpDir(t);
  assert.deepEqual(
    json(await svc(['--config', file, 'workspaces', 'list', '--json'], { cwd: elsewhere })).map((w: { name: string }) => w.name),
    ['acme'],
  );
  assert.deepEqual(
    json(await svc(['workspaces', 'list', '--json'], { cwd: elsewhere, env: { SVC_CONFIG: file } })).map((w: { name: string }) => w.name),
    ['acme'],
  );
  assert.deepEqual(readdirSync(elsewhere), [], 'nothing was made where the command ran');

  // Never overwritten.
  const again = await svc(['init', '--yes', '--service-domain', 'other.example.com'], { cwd });
  assert.equal(again.code, 1);
  assert.match(again.stderr, /exists already; svc init never overwrites/);
  assert.equal(readFileSync(file, 'utf8'), text);
});

test('a config file that is wrong is one line and exit 2: bad TOML, an unknown key (with the near one), a bad value, a missing file', async (t) => {
  const cwd = await tmpDir(t);
  const file = join(cwd, 'svc.toml');
  const cases: [string, RegExp][] = [
    ['service-domain = "unterminated\n', /svc\.toml is not valid TOML at line 1/],
    ['service_domain = "a.example"\n', /unknown setting 'service_domain' \(did you mean service-domain\?\)/],
    ['api-port = 70000\n', /invalid api-port \(config file\) '70000'/],
  ];
  for (const [body, re] of cases) {
    writeFileSync(file, body);
    const r = await svc(['config', 'show'], { cwd });
    assert.equal(r.code, 2, body);
    assert.match(r.stderr, re);
    assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
  }
  const missing = await svc(['--config', join(cwd, 'nope.toml'), 'config', 'show']);
  assert.equal(missing.code, 2);
  assert.match(missing.stderr, /cannot read the config file .*nope\.toml: ENOENT/);
});

test('a command that only reads never makes a store: a missing one is one line and exit 1; a misspelt SVC_* variable is said once', async (t) => {
  const cwd = await tmpDir(t);
  for (const args of [
    ['workspaces', 'list'],
    ['messages', 'list'],
    ['keys', 'list'],
    ['store', 'check'],
  ]) {
    const r = await svc(args, { cwd, env: { SVC_SERVCE_DOMAIN: 'typo.example' } });
    assert.equal(r.code, 1, args.join(' '));
    assert.match(r.stderr, /no svc store at .*svc-data \(svc init makes one/);
    assert.equal((r.stderr.match(/SVC_SERVCE_DOMAIN is not a setting of svc/g) ?? []).length, 1, r.stderr);
  }
  assert.deepEqual(readdirSync(cwd), [], 'no svc-data was left behind');
  assert.equal((await svc(['workspaces', 'create', 'acme'], { cwd })).code, 0, 'creating a workspace makes the store');
  assert.equal((await svc(['workspaces', 'list', '--json'], { cwd })).code, 0);
});

// A terminal: script(1) gives svc init a pseudo-terminal; the answers are typed ahead.
test(
  'svc init on a terminal asks, in order, with defaults that follow the answers; a wrong answer is asked again',
  { skip: noTerminal },
  async (t) => {
    const cwd = await tmpDir(t);
    const answers =
      ['mail.example.org', '', '9090', 'ftp://nowhere', 'https://mail.example.org', 'smtp://relay.example.org:587', ''].join('\n') + '\n';
    const session = await onTerminal({
      args: ['init'],
      cwd,
      env: { NO_COLOR: '1', TERM: 'dumb' },
      typedAhead: answers,
      deadlineMs: 30_000,
    });
    assert.equal(session.code, 0, session.out);
    for (const q of [
      /Service domain .*\[svc\.localhost\]: /,
      /MX host .*\[mx\.mail\.example\.org\]: /,
      /API port .*\[8080\]: /,
      /Public base URL .*\[http:\/\/127\.0\.0\.1:9090\]: /,
      /invalid --base-url 'ftp:\/\/nowhere'/,
      /Outbound route .*\[direct\]: /,
      /HELO name .*\[mx\.mail\.example\.org\]: /,
    ]) {
      assert.match(session.out, q);
    }
    const text = readFileSync(join(cwd, 'svc.toml'), 'utf8');
    assert.match(text, /^service-domain = "mail\.example\.org"$/m);
    // Defaults derived from other answers, taken as they were, stay derived: not written.
    assert.match(text, /^# mx-host = \(/m);
    assert.match(text, /^api-port = "9090"$/m);
    assert.match(text, /^base-url = "https:\/\/mail\.example\.org"$/m);
    assert.match(text, /^outbound = "smtp:\/\/relay\.example\.org:587"$/m);
    assert.match(text, /^# helo-name = \(/m);
  },
);

if (TEST_DATABASE_URL) {
  test('postgres: svc init --yes --config FILE migrates a fresh schema and writes the store URL into the file', async (t) => {
    const url = await freshSchemaUrl(t);
    const dir = await tmpDir(t);
    const file = join(dir, 'etc', 'svc.toml');
    const r = await svc(['init', '--yes', '--store', url, '--config', file, '--json']);
    // The file's folder must exist: init says so rather than make folders anywhere.
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stderr, /ENOENT|no such/i);
    const file2 = join(dir, 'svc.toml');
    const ok = json(await svc(['init', '--yes', '--store', url, '--config', file2, '--json']));
    assert.equal(ok.config, file2);
    assert.match(ok.store, /^postgres/);
    assert.ok(readFileSync(file2, 'utf8').includes(`store = ${JSON.stringify(url)}`));
    assert.deepEqual(json(await svc(['--config', file2, 'workspaces', 'list', '--json'])), [], 'the schema is current: commands run on it');
    assert.deepEqual(json(await svc(['--config', file2, 'migrate', '--json'])).applied, []);
  });
}

// Live views keep the output rules (CONTRACT.md): into a pipe no escape code, with --json one JSON
// document per line (NDJSON); on a terminal (a pseudo-terminal from script(1)) no colour when
// NO_COLOR is set; Ctrl-C (SIGINT) is exit 130; and a follower outlives a restart of its daemon,
// saying so on stderr.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import type { Writable } from 'node:stream';
import { SVC, svc, json, serve, cliSender } from '../helpers/cli.js';
import { tmpDir } from '../helpers/tmp.js';
import { fixtureDns } from '../helpers/dns-server.js';
import { publish } from '../helpers/domains.js';
import { plainMail, transact } from '../helpers/mx.js';
import { COLOUR, noTerminal, onTerminal, svcLine, unescaped } from '../helpers/terminal.js';

const ESC = /\x1b/;

/** Runs a command to its end, with a deadline; its exit code and output. `firstLine` runs once it writes a whole line. */
function run(args: string[], env: Record<string, string> = {}, deadlineMs = 60_000, firstLine?: () => void) {
  const child = spawn(process.execPath, [SVC, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => {
    const before = stdout.includes('\n');
    stdout += d;
    if (!before && stdout.includes('\n')) firstLine?.();
  });
  child.stderr.on('data', (d) => (stderr += d));
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), deadlineMs);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

test('domains verify --watch into a pipe: plain lines or NDJSON, no escape code; exit 0 once all five pass', async (t) => {
  const dns = await fixtureDns(t);
  const base = ['--store', `file:${await tmpDir(t)}`, '--dns-server', dns.server];
  json(await svc([...base, 'workspaces', 'create', 'acme', '--json']));
  const added = json(await svc([...base, 'domains', 'add', 'good.test', '--json']));
  // The records are published once the first round has been reported (pending), so a round before
  // and one after are seen however slowly the command starts.
  const ndjson = await run([...base, 'domains', 'verify', 'good.test', '--watch', '--interval', '0.2', '--json'], {}, 60_000, () =>
    publish(dns, 'good.test', added.records),
  );
  assert.equal(ndjson.code, 0, ndjson.stderr);
  assert.doesNotMatch(ndjson.stdout, ESC);
  const docs = ndjson.stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  assert.ok(docs.length >= 2, 'a document a round');
  assert.equal(docs.at(-1).status, 'verified');
  assert.equal(docs[0].status, 'pending');
  assert.equal(docs[0].records.length, 5);
});

test('a live view stopped with SIGINT exits 130, and its lines carry no escape code', async (t) => {
  const dns = await fixtureDns(t);
  const base = ['--store', `file:${await tmpDir(t)}`, '--dns-server', dns.server];
  json(await svc([...base, 'workspaces', 'create', 'acme', '--json']));
  json(await svc([...base, 'domains', 'add', 'late.test', '--json']));
  const child = spawn(process.execPath, [SVC, ...base, 'domains', 'verify', 'late.test', '--watch', '--interval', '0.2'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  t.after(() => child.kill('SIGKILL'));
  const lines: string[] = [];
  createInterface({ input: child.stdout }).on('line', (l) => lines.push(l));
  const exited = new Promise<number | null>((r) => child.on('exit', r));
  for (let i = 0; i < 200 && lines.length < 2; i++) await new Promise((r) => setTimeout(r, 50));
  assert.ok(lines.length >= 2, 'a line a round');
  for (const l of lines) {
    assert.doesNotMatch(l, ESC);
    assert.match(l, /^\d\d:\d\d:\d\d late\.test waiting: ownership \w+, mx \w+, spf \w+, dkim \w+, dmarc \w+$/);
  }
  child.kill('SIGINT');
  assert.equal(await exited, 130);
  // verify --wait too: Ctrl-C while it waits for DNS is 130.
  const waiting = spawn(process.execPath, [SVC, ...base, 'domains', 'verify', 'late.test', '--wait', '60'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  t.after(() => waiting.kill('SIGKILL'));
  const ended = new Promise<number | null>((r) => waiting.on('exit', r));
  await new Promise<void>((resolve) => createInterface({ input: waiting.stderr }).on('line', (l) => /waiting for/.test(l) && resolve()));
  waiting.kill('SIGINT');
  assert.equal(await ended, 130);
});

test('on a terminal the live view colours its statuses, and not with NO_COLOR', { skip: noTerminal }, async (t) => {
  const dns = await fixtureDns(t);
  const dir = await tmpDir(t);
  const base = ['--store', `file:${dir}`, '--dns-server', dns.server];
  json(await svc([...base, 'workspaces', 'create', 'acme', '--json']));
  const added = json(await svc([...base, 'domains', 'add', 'good.test', '--json']));
  publish(dns, 'good.test', added.records);
  // The live view ends by itself once all five pass.
  const drawn = async (env: Record<string, string>) =>
    (await onTerminal({ args: [...base, 'domains', 'verify', 'good.test', '--watch', '--interval', '0.2'], env })).out;
  const coloured = await drawn({});
  assert.match(coloured, /good\.test/);
  assert.match(coloured, COLOUR, 'colour on a terminal');
  const plain = await drawn({ NO_COLOR: '1' });
  assert.match(plain, /good\.test/);
  assert.doesNotMatch(plain, COLOUR, 'no colour with NO_COLOR');
  // A terminal that says it has 0 columns is drawn at 80: whole words, not a character a line.
  const narrow = (
    await onTerminal({ args: [...base, 'domains', 'verify', 'good.test', '--watch', '--interval', '0.2'], env: { NO_COLOR: '1' }, cols: 0 })
  ).out;
  assert.match(narrow, /good\.test/);
  assert.ok(narrow.split('\n').length < 60, `${narrow.split('\n').length} lines`);
});

test('inbox watch outlives a restart of its daemon: says so on stderr, connects again, shows what arrives after', async (t) => {
  const dns = await fixtureDns(t);
  const base = ['--store', `file:${await tmpDir(t)}`, '--dns-server', dns.server];
  await cliSender(base, dns);
  const d1 = await serve(base, { listeners: ['api', 'mx'] });
  t.after(() => d1.stop('SIGKILL'));
  const watch = spawn(process.execPath, [SVC, ...base, 'inbox', 'watch', '--json'], { stdio: ['ignore', 'pipe', 'pipe'] });
  t.after(() => watch.kill('SIGKILL'));
  const lines: string[] = [];
  const notes: string[] = [];
  createInterface({ input: watch.stdout }).on('line', (l) => lines.push(l));
  createInterface({ input: watch.stderr }).on('line', (l) => notes.push(l));
  const said = async (re: RegExp, what: string) => {
    for (let i = 0; i < 600 && !notes.some((n) => re.test(n)); i++) await new Promise((r) => setTimeout(r, 50));
    assert.ok(
      notes.some((n) => re.test(n)),
      `${what}: ${notes.join(' | ')}`,
    );
  };
  await said(/watching the team inbox/, 'watching');
  assert.equal(await d1.stop(), 0);
  await said(/lost the connection to svc serve .*waiting for it to come back/, 'the loss said');
  const d2 = await serve(base, { listeners: ['api', 'mx'] });
  t.after(() => d2.stop('SIGKILL'));
  await said(/connected again to daemon at /, 'the reconnection said');
  const mail = plainMail('jane@rcpt.test', 'hello@acme.test', 'After the restart');
  assert.match((await transact(d2.urls.mx!, 'jane@rcpt.test', ['hello@acme.test'], mail)).end, /^250 /);
  for (let i = 0; i < 200 && !lines.length; i++) await new Promise((r) => setTimeout(r, 50));
  assert.equal(lines.length, 1, notes.join(' | '));
  assert.equal(JSON.parse(lines[0]!).subject, 'After the restart');
  const exited = new Promise<number | null>((r) => watch.once('exit', r));
  watch.kill('SIGINT');
  assert.equal(await exited, 130);
  assert.equal(await d2.stop(), 0);
});

test(
  "inbox watch on a terminal: a restart of its daemon is told in the view's own status line, not written over the view",
  { skip: noTerminal },
  async (t) => {
    const dns = await fixtureDns(t);
    const base = ['--store', `file:${await tmpDir(t)}`, '--dns-server', dns.server];
    await cliSender(base, dns);
    const d1 = await serve(base, { listeners: ['api', 'mx'] });
    t.after(() => d1.stop('SIGKILL'));
    let screen = '';
    let keyboard: Writable | undefined;
    const session = onTerminal({
      args: [...base, 'inbox', 'watch'],
      cols: 300,
      onScreen: (shown, keys) => ((screen = shown), (keyboard = keys)),
    });
    const shows = async (re: RegExp, what: string) => {
      for (let i = 0; i < 600 && !re.test(unescaped(screen)); i++) await new Promise((r) => setTimeout(r, 50));
      assert.match(unescaped(screen), re, what);
    };
    await shows(/waiting for mail/, 'the view drawn');
    assert.equal(await d1.stop(), 0);
    await shows(/lost the connection to svc serve .*waiting for it to come back/, 'the loss told');
    // Drawn by the view (in its yellow), not a plain line on stderr under it.
    assert.match(screen, /\x1b\[33m[^\x1b]*lost the connection to svc serve/, 'in the view');
    const d2 = await serve(base, { listeners: ['api', 'mx'] });
    t.after(() => d2.stop('SIGKILL'));
    await shows(/connected again to daemon at /, 'the reconnection told');
    const mail = plainMail('jane@rcpt.test', 'hello@acme.test', 'After the restart');
    assert.match((await transact(d2.urls.mx!, 'jane@rcpt.test', ['hello@acme.test'], mail)).end, /^250 /);
    await shows(/After the restart/, 'what arrives after is shown');
    keyboard!.write('\x03');
    const { code } = await session;
    assert.equal(code, 130, 'Ctrl-C');
    assert.equal(await d2.stop(), 0);
  },
);

test('webhooks tail and inbox watch on a terminal: coloured, and not with NO_COLOR; Ctrl-C is 130', { skip: noTerminal }, async (t) => {
  const base = ['--store', `file:${await tmpDir(t)}`, '--workspace', 'acme'];
  json(await svc([...base, 'workspaces', 'create', 'acme', '--json']));
  /** The view drawn on a pseudo-terminal for a moment, then SIGINT to svc: what it showed, and its exit code. */
  const drawn = async (env: Record<string, string>, words: string[]) => {
    const { out } = await onTerminal({
      shell: `${svcLine([...base, ...words])} & pid=$!; sleep 2; kill -INT $pid; wait $pid; echo "exit=$?"`,
      env,
    });
    return { out, code: /exit=(\d+)/.exec(out)?.[1] ?? '?' };
  };
  for (const words of [
    ['webhooks', 'tail'],
    ['inbox', 'watch'],
  ]) {
    const coloured = await drawn({}, words);
    assert.match(coloured.out, COLOUR, `${words.join(' ')}: colour on a terminal`);
    assert.equal(coloured.code, '130', `${words.join(' ')}: Ctrl-C`);
    const plain = await drawn({ NO_COLOR: '1' }, words);
    assert.match(plain.out, /Ctrl-C to stop/, `${words.join(' ')}: drawn`);
    assert.doesNotMatch(plain.out, COLOUR, `${words.join(' ')}: no colour with NO_COLOR`);
  }
});

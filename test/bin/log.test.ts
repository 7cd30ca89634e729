// The daemon's mail log and SIGHUP: as a child process whose log is a pipe, every line
// is one JSON object (time, level, msg and fields), with one line per delivery attempt, bounce
// and MX refusal; SIGHUP reads the config file again (the log level changes) and never stops the
// daemon; a config file that became wrong changes nothing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { svc, json, serve, cliSender, postEmail, type ServeProcess } from '../helpers/cli.js';
import { RawSmtp } from '../helpers/smtp-client.js';
import { tmpDir } from '../helpers/tmp.js';
import { until as poll } from '../helpers/until.js';

/** Until `ok` holds (a log line, a state). */
const until = (what: string, ok: () => boolean | Promise<boolean>) =>
  poll(
    what,
    async () => ok(),
    (v) => v,
    // A deadline only against a hang: a loaded machine (the whole suite at once) can take long.
    180_000,
    50,
  );
import { fixtureDns } from '../helpers/dns-server.js';
import { sink } from '../helpers/sink.js';
import { transact } from '../helpers/mx.js';

type Line = Record<string, unknown> & { time: string; level: string; msg: string };
const lines = (d: ServeProcess): Line[] =>
  d
    .stderr()
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Line);

test('the mail log as JSON lines: a delivery, a bounce, an MX refusal; SIGHUP changes the level and the daemon keeps serving', async (t) => {
  const dns = await fixtureDns(t);
  const s = await sink(t);
  s.refuse('gone@rcpt.test', 550, '5.1.1 no such user');
  const dir = await tmpDir(t);
  const config = join(dir, 'svc.toml');
  await writeFile(config, `store = "file:${join(dir, 'data')}"\ndns-server = "${dns.server}"\nlog-level = "info"\n`);
  const base = ['--config', config];
  const key = await cliSender(base, dns);
  const d = await serve([...base, '--direct-port', String(s.port)], { listeners: ['api', 'mx'] });
  t.after(() => d.stop('SIGKILL'));

  const ok = await postEmail(d, key, 'ok@rcpt.test', 'hello');
  const gone = await postEmail(d, key, 'gone@rcpt.test', 'hello');
  assert.deepEqual([ok.status, gone.status], [202, 202]);
  assert.match(
    (await transact(d.urls.mx!, 'someone@elsewhere.test', ['nobody@nowhere.test'], Buffer.from('Subject: x\r\n\r\nx'))).rcpts[0] ?? '',
    /^550 /,
  );
  await until('both delivery lines', () => lines(d).filter((l) => l.msg === 'delivery').length >= 2);

  const all = lines(d);
  for (const l of all) {
    assert.match(l.time, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/, 'every line has its time');
    assert.ok(['debug', 'info', 'warn', 'error'].includes(l.level), l.level);
  }
  const sent = all.find((l) => l.msg === 'delivery' && l.to === 'ok@rcpt.test')!;
  assert.equal(sent.level, 'info');
  assert.equal(sent.message, ok.body.id);
  assert.equal(sent.status, 'sent');
  assert.equal(sent.from, 'hello@acme.test');
  assert.match(String(sent.message_id), /@acme\.test$/);
  assert.equal(sent.ip, '127.0.0.1');
  assert.equal(sent.attempt, 1);
  assert.match(String(sent.dsn), /^2\.\d\.\d$/);
  assert.equal(typeof sent.delay, 'number');
  assert.equal(typeof sent.tls, 'boolean');
  const bounced = all.find((l) => l.msg === 'delivery' && l.to === 'gone@rcpt.test')!;
  assert.deepEqual(
    [bounced.level, bounced.status, bounced.dsn, bounced.message],
    ['info', 'bounced', '5.1.1', gone.body.id],
    'an ordinary bounce is info',
  );
  assert.match(String(bounced.reply), /^550 5\.1\.1 no such user/);
  // Suppressed now: the next send to it is left out, and the log says so.
  const again = await postEmail(d, key, 'gone@rcpt.test', 'hello again');
  await until('the suppressed line', () => lines(d).some((l) => l.msg === 'suppressed'));
  const left = lines(d).find((l) => l.msg === 'suppressed')!;
  assert.deepEqual(
    [left.level, left.message, left.to, left.reason, typeof left.since],
    ['info', again.body.id, 'gone@rcpt.test', 'bounce', 'string'],
  );
  const refused = all.find((l) => l.msg === 'mx refused')!;
  assert.deepEqual(
    [refused.level, refused.stage, refused.client, refused.from, refused.to],
    ['info', 'rcpt', '127.0.0.1', 'someone@elsewhere.test', 'nobody@nowhere.test'],
  );
  assert.match(String(refused.reply), /^550 /);
  assert.equal(typeof refused.helo, 'string');

  // From a log line to the record: by Message-ID (brackets or not), sender and time.
  const found = json(await svc([...base, 'messages', 'list', '--message-id', `<${String(sent.message_id)}>`, '--json']));
  assert.deepEqual(
    found.map((m: { id: string }) => m.id),
    [ok.body.id],
  );
  assert.equal(json(await svc([...base, 'messages', 'list', '--from', 'HELLO@acme', '--since', '1h', '--json'])).length, 3);
  assert.deepEqual(json(await svc([...base, 'messages', 'list', '--until', '2000-01-01T00:00:00Z', '--json'])), []);
  const badSince = await svc([...base, 'messages', 'list', '--since', 'yesterday']);
  assert.deepEqual(
    [badSince.code, badSince.stderr.trim()],
    [2, "svc: invalid --since 'yesterday': an ISO time (2026-11-22T10:00:00Z) or an age (30m, 2h, 7d)"],
  );

  // SIGHUP: the file now says warn; info lines stop, the daemon goes on.
  await writeFile(config, `store = "file:${join(dir, 'data')}"\ndns-server = "${dns.server}"\nlog-level = "warn"\nretention-days = 7\n`);
  d.child.kill('SIGHUP');
  await until('the reload line', () => lines(d).some((l) => /^SIGHUP: configuration read again/.test(l.msg)));
  const reload = lines(d).find((l) => /^SIGHUP/.test(l.msg))!;
  // The certificate files (the tests' fixture, given as --tls-cert) are read again too.
  assert.equal(reload.applied, 'logLevel,tls (files read again)');
  assert.equal(reload.restart_needed, 'retentionDays', 'what needs a restart is named');
  const before = lines(d).length;
  const later = await postEmail(d, key, 'ok@rcpt.test', 'after the reload');
  assert.equal(later.status, 202);
  await until(
    'the later message sent',
    async () => json(await svc([...base, 'messages', 'show', later.body.id, '--json'])).status === 'sent',
  );
  assert.equal((await fetch(`${d.urls.api}/healthz`)).status, 200, 'still serving');
  assert.equal(d.child.exitCode, null);
  assert.equal(
    lines(d)
      .slice(before)
      .filter((l) => l.level === 'info').length,
    0,
    'no info line at warn',
  );

  // A file that became wrong: said, and nothing changes.
  await writeFile(config, 'log-level = "loud"\n');
  d.child.kill('SIGHUP');
  await until('the refusal', () =>
    lines(d).some(
      (l) => l.level === 'error' && /SIGHUP: the configuration was not reloaded .*invalid log-level \(config file\) 'loud'/.test(l.msg),
    ),
  );
  assert.equal((await fetch(`${d.urls.api}/healthz`)).status, 200);
  assert.equal(await d.stop(), 0, 'SIGTERM still stops it cleanly');
});

test('--log-format text: readable lines with timestamps; a bad --log-level is exit 2', async (t) => {
  const dir = await tmpDir(t);
  const d = await serve(['--store', `file:${dir}`, '--log-format', 'text'], { listeners: ['api', 'mx'] });
  t.after(() => d.stop('SIGKILL'));
  assert.equal(await d.stop(), 0);
  assert.match(d.stderr(), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z svc: SIGTERM: stopping$/m);
  // A store without a workspace: the first-run banner says where everything is.
  assert.match(
    d.stderr(),
    new RegExp(
      `svc: first run: the REST API and web app are at ${d.urls.api} \\(/api/v2, /app/\\), the SMTP relay at ${d.urls.relay}, the inbound MX at ${d.urls.mx}`,
    ),
  );
  const bad = await svc(['serve', '--store', `file:${dir}`, '--log-level', 'loud']);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /invalid --log-level 'loud': use debug, info, warn, error/);
});

test('a stalled reader of the log never stalls the daemon: lines past --log-buffer are dropped, counted, and said when it reads again', async (t) => {
  const dir = await tmpDir(t);
  json(await svc(['--store', `file:${dir}`, 'workspaces', 'create', 'acme', '--json']));
  // Whatever reads the log stops reading: the pipe fills, then the daemon's buffer.
  const d = await serve(['--store', `file:${dir}`, '--metrics-port', '0', '--log-buffer', '64kb'], {
    env: { NO_COLOR: '1' },
    listeners: ['api', 'mx', 'metrics'],
    stalledLog: true,
  });
  t.after(() => d.stop('SIGKILL'));
  const url = (name: string) => d.urls[name]!;
  // A flood of log lines: each refused recipient is one (about 200 bytes; 3,000 pass 64 KB of pipe and 64 KB of buffer).
  const { client } = await RawSmtp.open(url('mx'));
  await client.cmd('EHLO flood.test');
  await client.cmd('MAIL FROM:<a@flood.test>');
  const replies = Array.from({ length: 3000 }, () => client.reply());
  client.write('RCPT TO:<nobody@nowhere.test>\r\n'.repeat(3000));
  for (const r of await Promise.all(replies)) assert.match(r.join(), /^550 /);
  client.destroy();
  // Meanwhile the daemon answers, though nothing reads its log.
  assert.equal((await fetch(`${url('api')}/healthz`)).status, 200);
  const metrics = await (await fetch(`${url('metrics')}/metrics`)).text();
  const dropped = Number(/^svc_log_lines_dropped_total (\d+)/m.exec(metrics)![1]);
  assert.ok(dropped > 0, `lines dropped: ${dropped}`);
  // The reader is back: the log says how many were lost.
  let err = '';
  d.child.stderr!.on('data', (chunk) => (err += chunk));
  d.child.stderr!.resume();
  await until('the dropped-lines note', () => /line\(s\) dropped: whatever reads the log did not keep up/.test(err));
});

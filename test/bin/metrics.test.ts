// GET /metrics: off by default; with --metrics-port a listener of its own on loopback
// with a ready line; the Prometheus text format, read by an independent parser; the counters move
// with real sends, a bounce and an MX refusal; store calls are timed; process metrics are there.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import parse from 'parse-prometheus-text-format';
import { svc, json, serve, cliSender, postEmail } from '../helpers/cli.js';
import { tmpDir } from '../helpers/tmp.js';
import { fixtureDns } from '../helpers/dns-server.js';
import { sink } from '../helpers/sink.js';
import { transact } from '../helpers/mx.js';
import { until } from '../helpers/until.js';

let lastText = '';
const scrape = async (url: string) => {
  const r = await fetch(`${url}/metrics`);
  assert.equal(r.status, 200);
  assert.match(r.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
  lastText = await r.text();
  return parse(lastText);
};
const value = (families: ReturnType<typeof parse>, name: string, labels: Record<string, string> = {}) => {
  const f = families.find((x) => x.name === name);
  if (!f) return undefined;
  const m = f.metrics.find((s) => Object.entries(labels).every(([k, v]) => s.labels?.[k] === v));
  return m ? Number(m.value ?? m.count) : undefined;
};

test('metrics: a listener of its own on loopback; counters move with real sends, a bounce and an MX refusal', async (t) => {
  const dns = await fixtureDns(t);
  const s = await sink(t);
  s.refuse('gone@rcpt.test', 550, '5.1.1 no such user');
  const store = `file:${await tmpDir(t)}`;
  const base = ['--store', store, '--dns-server', dns.server];
  const key = await cliSender(base, dns);
  // Without the flag there is no metrics listener at all.
  const plain = await serve(base);
  assert.equal(plain.urls.metrics, undefined);
  assert.equal((await fetch(`${plain.urls.api}/metrics`)).status, 404, 'never on the API port');
  assert.equal(await plain.stop(), 0);

  const d = await serve([...base, '--direct-port', String(s.port), '--metrics-port', '0', '--host', '127.0.0.1'], {
    listeners: ['api', 'mx', 'metrics'],
  });
  t.after(() => d.stop('SIGKILL'));
  assert.match(d.stdout(), /^svc: metrics listening on http:\/\/127\.0\.0\.1:\d+$/m);
  const before = await scrape(d.urls.metrics!);
  assert.equal(value(before, 'svc_deliveries_total', { status: 'sent' }), 0);
  assert.ok(value(before, 'process_cpu_user_seconds_total')! >= 0, 'process metrics');
  assert.ok(before.some((f) => f.name === 'nodejs_eventloop_lag_seconds'));

  const ok = await postEmail(d, key, 'ok@rcpt.test', 'hello');
  const gone = await postEmail(d, key, 'gone@rcpt.test', 'hello');
  assert.deepEqual([ok.status, gone.status], [202, 202]);
  assert.match((await transact(d.urls.mx!, 'someone@elsewhere.test', ['nobody@nowhere.test'], 'Subject: x\r\n\r\nx')).rcpts[0]!, /^550 /);
  await until(
    'no message queued',
    async () => json(await svc([...base, 'messages', 'list', '--json'])) as Array<{ status: string }>,
    (m) => m.every((x) => x.status !== 'queued'),
  );
  const after = await scrape(d.urls.metrics!);
  assert.equal(value(after, 'svc_messages_accepted_total', { source: 'api' }), 2);
  assert.equal(value(after, 'svc_deliveries_total', { status: 'sent' }), 1);
  assert.equal(value(after, 'svc_deliveries_total', { status: 'bounced' }), 1);
  assert.equal(value(after, 'svc_bounces_total', { class: 'bad-mailbox' }), 1);
  assert.equal(value(after, 'svc_mx_refusals_total', { stage: 'rcpt' }), 1);
  assert.equal(value(after, 'svc_mx_sessions_total'), 1);
  assert.equal(value(after, 'svc_queue_depth'), 0);
  assert.equal(value(after, 'svc_queue_oldest_seconds'), 0);
  const delay = after.find((f) => f.name === 'svc_delivery_delay_seconds')!;
  assert.equal(delay.type, 'HISTOGRAM');
  assert.equal(Number(delay.metrics[0]!.count), 1);
  assert.equal(after.find((f) => f.name === 'svc_store_call_seconds')?.type, 'HISTOGRAM');
  // The parser keeps no labels of a labelled histogram: its series are read from the text.
  const accepts = /^svc_store_call_seconds_count\{group="messages",op="accept",outcome="ok"\} (\d+)$/m.exec(lastText);
  assert.ok(accepts && Number(accepts[1]) >= 2, 'store calls are timed');
  assert.equal((await fetch(`${d.urls.metrics}/other`)).status, 404);
  assert.equal(await d.stop(), 0);
});

test('--metrics-port is checked like every port; the metrics listener binds loopback whatever --host is', async (t) => {
  const bad = await svc(['serve', '--store', `file:${await tmpDir(t)}`, '--metrics-port', 'x']);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /invalid --metrics-port 'x'/);
  const shown = json(await svc(['config', 'show', '--json', '--host', '0.0.0.0', '--metrics-port', '9100'])).settings;
  assert.equal(shown.find((r: { setting: string }) => r.setting === 'metricsHost').value, '127.0.0.1');
});

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { describeStore, loadConfig, parseStore, publicSettingsWarnings } from '../../src/config.js';
import { isSvcError } from '../../src/errors.js';

const usage = (re: RegExp) => (e: unknown) =>
  isSvcError(e) && e.kind === 'usage' && e.spec.exit === 2 && re.test(e.message) && !e.message.includes('\n');

test('defaults are CONTRACT.md defaults', () => {
  const c = loadConfig({}, {}, '/srv');
  assert.deepEqual(c.store, { kind: 'file', dir: '/srv/svc-data' });
  assert.equal(c.host, '127.0.0.1');
  assert.equal(c.apiPort, 8080);
  assert.equal(c.relayPort, 2525);
  assert.equal(c.mxPort, 2526);
  assert.equal(c.baseUrl, 'http://127.0.0.1:8080');
  assert.equal(c.serviceDomain, 'svc.localhost');
  assert.equal(c.mxHost, 'mx.svc.localhost');
  assert.equal(c.outbound, 'direct');
  assert.deepEqual(c.dnsServers, []);
  assert.equal(c.allowInsecureWebhooks, false);
});

test('flags win over SVC_* environment, which wins over defaults', () => {
  const env = {
    SVC_API_PORT: '9000',
    SVC_RELAY_PORT: '2600',
    SVC_STORE: 'postgres://u:p@db/svc',
    SVC_SERVICE_DOMAIN: 'mail.example.com',
    SVC_ALLOW_INSECURE_WEBHOOKS: '1',
    SVC_DNS_SERVERS: '127.0.0.1:5353,[::1]:53',
  };
  const c = loadConfig({ apiPort: '9100' }, env, '/srv');
  assert.equal(c.apiPort, 9100);
  assert.equal(c.relayPort, 2600);
  assert.deepEqual(c.store, {
    kind: 'postgres',
    url: 'postgres://u:p@db/svc',
    schema: undefined,
    poolSize: 10,
    statementTimeoutMs: 10_000,
    connectTimeoutMs: 3_000,
  });
  assert.equal(c.mxHost, 'mx.mail.example.com');
  assert.equal(c.allowInsecureWebhooks, true);
  assert.deepEqual(c.dnsServers, ['127.0.0.1:5353', '[::1]:53']);
});

test('store URLs: file:DIR relative or absolute, file:// URLs, postgres and postgresql', () => {
  assert.deepEqual(parseStore('file:data', '/srv'), { kind: 'file', dir: '/srv/data' });
  assert.deepEqual(parseStore('file:/var/lib/svc', '/srv'), { kind: 'file', dir: '/var/lib/svc' });
  assert.deepEqual(parseStore('file:///var/lib/svc', '/srv'), { kind: 'file', dir: '/var/lib/svc' });
  assert.equal(parseStore('postgresql://localhost/test').kind, 'postgres');
});

test('postgres: ?schema= is ours, pool settings come from flags and env, the password is masked', () => {
  const c = loadConfig(
    { store: 'postgres://u:s3cret@db:5433/svc?schema=tenant_a&sslmode=disable', pgPoolSize: '4' },
    { SVC_PG_STATEMENT_TIMEOUT: '2500' },
  );
  assert.ok(c.store.kind === 'postgres');
  assert.equal(c.store.schema, 'tenant_a');
  assert.equal(c.store.url, 'postgres://u:s3cret@db:5433/svc?sslmode=disable');
  assert.deepEqual([c.store.poolSize, c.store.statementTimeoutMs, c.store.connectTimeoutMs], [4, 2500, 3000]);
  assert.equal(describeStore(c.store), 'postgres://u:***@db:5433/svc?sslmode=disable (schema tenant_a)');
  assert.throws(() => loadConfig({ store: 'postgres://db/svc?schema=Bad-Name' }, {}), usage(/schema/));
  assert.throws(() => loadConfig({ pgPoolSize: '0' }, {}), usage(/--pg-pool-size/));
});

test('invalid values are one-line usage errors', () => {
  assert.throws(() => loadConfig({ apiPort: 'abc' }, {}), usage(/invalid --api-port 'abc'/));
  assert.throws(() => loadConfig({ apiPort: '70000' }, {}), usage(/--api-port/));
  // A value from the environment is named as it was given there.
  assert.throws(() => loadConfig({}, { SVC_RELAY_PORT: '-1' }), usage(/invalid SVC_RELAY_PORT '-1'/));
  assert.throws(() => loadConfig({ store: 'mysql://db' }, {}), usage(/unknown store scheme 'mysql:'/));
  assert.throws(() => loadConfig({ store: 'svc-data' }, {}), usage(/invalid --store/));
  assert.throws(() => loadConfig({ store: 'file:' }, {}), usage(/file:DIR/));
  assert.throws(() => loadConfig({ store: 'postgres://[bad' }, {}), usage(/malformed postgres URL/));
  assert.throws(() => loadConfig({ baseUrl: 'not a url' }, {}), usage(/--base-url/));
  assert.throws(() => loadConfig({ baseUrl: 'ftp://x' }, {}), usage(/--base-url/));
  assert.throws(() => loadConfig({ outbound: 'http://relay' }, {}), usage(/--outbound/));
  assert.throws(() => loadConfig({ dnsServer: 'dns.example.com' }, {}), usage(/--dns-server/));
  assert.throws(() => loadConfig({ host: 'bad host!' }, {}), usage(/--host/));
  assert.throws(() => loadConfig({ tlsCert: 'c.pem' }, {}), usage(/go together/));
  assert.throws(() => loadConfig({ bodyLimit: '12' }, {}), usage(/--body-limit/));
});

test('the password of a postgres URL never appears in an error', () => {
  assert.throws(
    () => loadConfig({ store: 'postgres://user:s3cret@[bad' }, {}),
    (e: Error) => !e.message.includes('s3cret'),
  );
});

test('a daemon listening beyond loopback is warned about a loopback or unspecified base URL and about svc.localhost; on loopback nothing is said', () => {
  const at = (host: string, baseUrl: string, serviceDomain = 'mail.example.com') =>
    publicSettingsWarnings({ host, baseUrl, serviceDomain });
  assert.deepEqual(at('127.0.0.1', 'http://127.0.0.1:8080', 'svc.localhost'), []);
  assert.deepEqual(at('::1', 'http://[::1]:8080', 'svc.localhost'), []);
  assert.deepEqual(at('0.0.0.0', 'https://mail.example.com'), []);
  assert.match(at('0.0.0.0', 'http://127.0.0.1:8080').join('\n'), /base URL http:\/\/127\.0\.0\.1:8080 is not a public URL/);
  assert.match(at('0.0.0.0', 'http://0.0.0.0:8080').join('\n'), /not a public URL/);
  assert.match(at('203.0.113.5', 'http://localhost:8080').join('\n'), /not a public URL/);
  const both = at('0.0.0.0', 'http://127.0.0.1:8080', 'svc.localhost');
  assert.equal(both.length, 2);
  assert.match(both[1]!, /service domain is svc\.localhost/);
});

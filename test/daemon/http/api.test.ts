// The REST core over real HTTP: authentication, scopes, error bodies, body handling, CORS, 404.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import type { FastifyInstance } from 'fastify';
import { buildApi } from '../../../daemon/http/api.js';
import { principalOf } from '../../../daemon/http/auth.js';
import { testService } from '../../helpers/service.js';
import type { Service } from '../../../src/service.js';

async function api(t: { after(fn: () => unknown): void }, bodyLimit = 1024 * 1024) {
  const { service, logs } = await testService(t, { config: { bodyLimit } });
  // Routes with bodies and each scope rule of spec.md, to exercise the shared machinery before the
  // endpoints that use it exist.
  const app: FastifyInstance = await buildApi(service, {
    routes: (scope) => {
      scope.post('/api/v2/test-echo', { config: { scope: { anyOf: ['send'], named: 'send' } } }, async (req) => ({ body: req.body }));
      scope.get('/api/v2/test-lists', { config: { scope: { anyOf: ['read', 'newsletter'], named: 'newsletter' } } }, async (req) => ({
        tenant: principalOf(req).workspace.name,
      }));
      scope.get('/api/v2/test-messages', { config: { scope: { anyOf: ['read', 'send'], named: 'read' } } }, async () => ({ ok: true }));
    },
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  t.after(() => app.close());
  const addr = app.server.address() as { port: number };
  return { url: `http://127.0.0.1:${addr.port}`, service, logs };
}

async function key(service: Service, scopes: string, workspace = 'acme') {
  const ws = (await service.store.workspaces.getByName(workspace)) ?? (await service.workspaces.create(workspace));
  return (await service.keys.create(ws, { scopes })).key;
}

const bearer = (k: string) => ({ authorization: `Bearer ${k}` });

async function call(url: string, init: RequestInit = {}) {
  const res = await fetch(url, init);
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : null };
}

test('GET /api/v2/me answers tenant and permissions for any valid key', async (t) => {
  const { url, service } = await api(t);
  for (const scopes of ['read,send', 'newsletter', 'contacts', '*']) {
    const k = await key(service, scopes);
    const r = await call(`${url}/api/v2/me`, { headers: bearer(k) });
    assert.equal(r.status, 200);
    assert.deepEqual(r.body, { tenant: 'acme', permissions: scopes === 'read,send' ? ['send', 'read'] : [scopes] });
    assert.match(r.headers.get('content-type') ?? '', /^application\/json/);
  }
});

test('the three 401 texts of the spec', async (t) => {
  const { url, service } = await api(t);
  const cases: Array<[Record<string, string>, string]> = [
    [{}, 'missing Bearer token'],
    [{ authorization: 'Basic dXNlcjpwYXNz' }, 'missing Bearer token'],
    [{ authorization: 'Bearer' }, 'missing Bearer token'],
    [{ authorization: 'Token svc_' + 'a'.repeat(48) }, 'missing Bearer token'],
    [{ authorization: 'Bearer sk_live_abc' }, 'invalid api key format'],
    [{ authorization: 'Bearer ' + 'a'.repeat(52) }, 'invalid api key format'],
    [{ authorization: 'Bearer svc_' + 'a'.repeat(48) }, 'invalid or revoked api key'],
    [{ authorization: 'Bearer svc_abc' }, 'invalid or revoked api key'],
    [{ authorization: 'Bearer svc_' + 'A'.repeat(48) }, 'invalid or revoked api key'],
  ];
  for (const [headers, error] of cases) {
    const r = await call(`${url}/api/v2/me`, { headers });
    assert.equal(r.status, 401, JSON.stringify(headers));
    assert.deepEqual(r.body, { error });
  }
  // A key of the right form that was revoked: 401 on the very next request.
  const k = await key(service, 'read');
  assert.equal((await call(`${url}/api/v2/me`, { headers: bearer(k) })).status, 200);
  const ws = (await service.store.workspaces.getByName('acme'))!;
  const [info] = await service.keys.list(ws);
  await service.keys.revoke(ws, info!.id);
  const after = await call(`${url}/api/v2/me`, { headers: bearer(k) });
  assert.deepEqual([after.status, after.body], [401, { error: 'invalid or revoked api key' }]);
});

test('403 names the scope the spec says: newsletter for read-or-newsletter, read for read-or-send', async (t) => {
  const { url, service } = await api(t);
  const send = await key(service, 'send');
  const news = await key(service, 'newsletter');
  const contacts = await key(service, 'contacts');
  assert.deepEqual((await call(`${url}/api/v2/test-lists`, { headers: bearer(send) })).body, { error: 'missing permission: newsletter' });
  assert.equal((await call(`${url}/api/v2/test-lists`, { headers: bearer(send) })).status, 403);
  assert.equal((await call(`${url}/api/v2/test-lists`, { headers: bearer(news) })).status, 200);
  assert.deepEqual((await call(`${url}/api/v2/test-messages`, { headers: bearer(news) })).body, { error: 'missing permission: read' });
  assert.equal((await call(`${url}/api/v2/test-messages`, { headers: bearer(send) })).status, 200);
  assert.deepEqual(
    await call(`${url}/api/v2/test-echo`, {
      method: 'POST',
      headers: { ...bearer(contacts), 'content-type': 'application/json' },
      body: '{}',
    }).then((r) => [r.status, r.body]),
    [403, { error: 'missing permission: send' }],
  );
  const star = await key(service, '*');
  for (const p of ['test-lists', 'test-messages']) assert.equal((await call(`${url}/api/v2/${p}`, { headers: bearer(star) })).status, 200);
});

test('authentication comes before the body: a bad key with bad JSON is a 401', async (t) => {
  const { url } = await api(t);
  const r = await call(`${url}/api/v2/test-echo`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{nope' });
  assert.deepEqual([r.status, r.body], [401, { error: 'missing Bearer token' }]);
});

test('bodies: bad JSON, wrong content type and deep nesting are 400 invalid body', async (t) => {
  const { url, service } = await api(t);
  const k = await key(service, 'send');
  const post = (body: string, type?: string) =>
    call(`${url}/api/v2/test-echo`, { method: 'POST', headers: { ...bearer(k), ...(type ? { 'content-type': type } : {}) }, body });
  assert.deepEqual((await post('{"a":1}', 'application/json')).body, { body: { a: 1 } });
  for (const [body, type] of [
    ['{"a":', 'application/json'],
    ['', 'application/json'],
    ['a=1', 'application/x-www-form-urlencoded'],
    ['{"a":1}', 'text/plain'],
    ['{"__proto__":{"x":1}}', 'application/json'],
    ['['.repeat(20_000) + ']'.repeat(20_000), 'application/json'],
    ['{"a":'.repeat(33) + '1' + '}'.repeat(33), 'application/json'],
  ] as const) {
    const r = await post(body, type);
    assert.equal(r.status, 400, `${type} ${body.slice(0, 30)}`);
    assert.match(r.body.error, /^invalid body/);
  }
  assert.deepEqual((await post('['.repeat(33) + ']'.repeat(33), 'application/json')).body, {
    error: 'invalid body: nested deeper than 32 levels',
  });
  // 32 levels are fine; brackets inside strings do not count, whatever the escapes before them.
  assert.equal((await post('{"a":'.repeat(31) + '"[[[[{{{{"' + '}'.repeat(31), 'application/json')).status, 200);
  const escaped = '{"a":' + JSON.stringify('\\" [[[[ \\\\"{{{{' + '['.repeat(40)) + ',"b":' + '['.repeat(31) + ']'.repeat(31) + '}';
  assert.equal((await post(escaped, 'application/json')).status, 200);
  // The same escapes, and one level more outside the strings, is refused.
  assert.equal(
    (
      await post(
        escaped.replace('"b":' + '['.repeat(31), '"b":' + '['.repeat(32)).replace(']'.repeat(31), ']'.repeat(32)),
        'application/json',
      )
    ).status,
    400,
  );
});

test('bodies over the limit are 413, also when streamed without a length', async (t) => {
  const { url, service } = await api(t, 4096);
  const k = await key(service, 'send');
  const big = JSON.stringify({ a: 'x'.repeat(5000) });
  const r = await call(`${url}/api/v2/test-echo`, {
    method: 'POST',
    headers: { ...bearer(k), 'content-type': 'application/json' },
    body: big,
  });
  assert.deepEqual([r.status, r.body], [413, { error: 'request body too large' }]);
  // Chunked: the server stops reading at the limit rather than buffering the whole stream.
  const u = new URL(`${url}/api/v2/test-echo`);
  const status = await new Promise<number>((resolve, reject) => {
    const req = request(
      {
        host: u.hostname,
        port: u.port,
        path: u.pathname,
        method: 'POST',
        headers: { ...bearer(k), 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
      },
      (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      },
    );
    req.on('error', reject);
    req.write('{"a":"');
    const chunk = 'x'.repeat(1024);
    let sent = 0;
    const pump = () => {
      while (sent < 64 && req.write(chunk)) sent++;
      if (sent < 64) req.once('drain', pump);
      else req.end('"}');
    };
    pump();
  });
  assert.equal(status, 413);
});

test('unknown paths are a JSON 404; /healthz needs no key', async (t) => {
  const { url } = await api(t);
  for (const p of ['/api/v2/nope', '/api/v1/me', '/api/v2/me/extra', '/nope']) {
    const r = await call(`${url}${p}`);
    assert.deepEqual([r.status, r.body], [404, { error: 'not found' }], p);
  }
  // The root sends a browser to the web app.
  const root = await fetch(`${url}/`, { redirect: 'manual' });
  assert.deepEqual([root.status, root.headers.get('location')], [302, '/app/']);
  assert.deepEqual((await call(`${url}/api/v2/me`, { method: 'DELETE' })).status, 404);
  const h = await call(`${url}/healthz`);
  assert.deepEqual([h.status, h.body], [200, { ok: true }]);
});

test('CORS: any origin, preflight answered, no credentials', async (t) => {
  const { url, service } = await api(t);
  const pre = await fetch(`${url}/api/v2/me`, {
    method: 'OPTIONS',
    headers: {
      origin: 'https://app.example',
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'authorization,content-type,idempotency-key',
    },
  });
  assert.equal(pre.status, 204);
  assert.equal(pre.headers.get('access-control-allow-origin'), '*');
  assert.match(pre.headers.get('access-control-allow-headers') ?? '', /Authorization/);
  assert.match(pre.headers.get('access-control-allow-headers') ?? '', /Idempotency-Key/);
  assert.equal(pre.headers.get('access-control-allow-credentials'), null);
  const k = await key(service, 'read');
  const r = await fetch(`${url}/api/v2/me`, { headers: { origin: 'https://evil.example', ...bearer(k) } });
  assert.equal(r.headers.get('access-control-allow-origin'), '*');
  assert.equal(r.headers.get('access-control-allow-credentials'), null);
  // Error answers carry CORS headers too, so a browser client can read the error.
  const e = await fetch(`${url}/api/v2/me`, { headers: { origin: 'https://app.example' } });
  assert.equal(e.headers.get('access-control-allow-origin'), '*');
  const missing = await fetch(`${url}/api/v2/no-such-thing`, { headers: { origin: 'https://app.example' } });
  assert.equal(missing.status, 404);
  assert.equal(missing.headers.get('access-control-allow-origin'), '*');
  // The pixel and tracked links are for mail readers, not scripts: no CORS there (and no auth hook).
  const pixel = await fetch(`${url}/t/o/${'a'.repeat(32)}.gif`, { headers: { origin: 'https://app.example' } });
  assert.equal(pixel.status, 200);
  assert.equal(pixel.headers.get('content-type'), 'image/gif');
  assert.equal(pixel.headers.get('access-control-allow-origin'), null);
  const link = await fetch(`${url}/t/c/${'a'.repeat(32)}/sig`, { headers: { origin: 'https://app.example' }, redirect: 'manual' });
  assert.equal(link.status, 404);
  assert.equal(link.headers.get('access-control-allow-origin'), null);
});

test('no full key ever reaches the log', async (t) => {
  const { url, service, logs } = await api(t);
  const k = await key(service, 'send');
  await call(`${url}/api/v2/me`, { headers: bearer(k) });
  await call(`${url}/api/v2/test-echo`, { method: 'POST', headers: { ...bearer(k), 'content-type': 'application/json' }, body: '{"a":' });
  await call(`${url}/api/v2/me`, { headers: bearer(k.slice(0, -1) + 'z') });
  assert.ok(!logs.join('').includes(k.slice(4)));
});

test("a path parameter over 100 characters is 414 in the API error shape, not the router's own body", async (t) => {
  const { url, service } = await api(t);
  const k = await key(service, 'read,send');
  const app: FastifyInstance = await buildApi(service, {
    routes: (scope) => scope.get('/api/v2/test-thing/:id', async () => ({ ok: true })),
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  t.after(() => app.close());
  const base = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
  const long = await call(`${base}/api/v2/test-thing/${'a'.repeat(5000)}`, { headers: bearer(k) });
  assert.equal(long.status, 414);
  assert.deepEqual(long.body, { error: 'path too long: a path segment is over 100 characters' });
  // A 5,000-character path that matches no route is a plain 404.
  assert.deepEqual(await call(`${url}/api/v2/${'b'.repeat(5000)}`, { headers: bearer(k) }).then((r) => [r.status, r.body]), [
    404,
    { error: 'not found' },
  ]);
});

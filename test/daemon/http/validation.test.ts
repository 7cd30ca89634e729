// Request schemas run (daemon/http/validation.ts): every route's body, query string and path
// parameters are checked by fastify before the handler, and a refused request is answered with its
// service's own text (spec.md "Errors"). Two tests: the texts over HTTP, route by route, each
// invalid shape; and, for every route that declares a schema, that the schema is never stricter than
// the parser it borrows its texts from (whatever ajv refuses, the parser refuses too), so no client
// ever sees ajv's wording.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { RouteOptions } from 'fastify';
import { sending } from '../../helpers/sending.js';
import { buildApi } from '../../../daemon/http/api.js';
import { validatorCompiler, type RequestPart } from '../../../daemon/http/validation.js';
import { isSvcError } from '../../../src/errors.js';
import { parseSendRequest } from '../../../src/send/validate.js';

test('a request its schema refuses gets its service’s text, route by route; what the schema allows reaches the service', async (t) => {
  const s = await sending(t, { deliver: false });
  const nk = (await s.daemon.service.keys.create(s.ws, { scopes: 'newsletter,read,send' })).key;
  const call = async (method: string, path: string, body?: unknown) => {
    const r = await s.call(method, path, body, nk);
    return [r.status, r.body] as const;
  };
  const refused = async (method: string, path: string, body: unknown, error: string) =>
    assert.deepEqual(await call(method, path, body), [400, { error }], `${method} ${path} ${JSON.stringify(body)}`);

  // POST /emails (spec.md "Errors": the first three texts are the spec's own).
  const mail = { from: 'hello@acme.test', to: ['jane@rcpt.test'], subject: 'Hi', body_text: 'Hi' };
  await refused('POST', '/api/v2/emails', {}, 'from, to, subject are required');
  await refused('POST', '/api/v2/emails', { ...mail, subject: null }, 'from, to, subject are required');
  await refused('POST', '/api/v2/emails', { ...mail, from: 'not an address' }, 'from address is not a valid email');
  await refused('POST', '/api/v2/emails', { ...mail, to: 'jane@rcpt.test' }, 'invalid body: to must be an array of strings');
  await refused('POST', '/api/v2/emails', { ...mail, to: [5] }, 'invalid body: to must be an array of strings');
  await refused('POST', '/api/v2/emails', { ...mail, from: 5 }, 'invalid body: from must be a string');
  await refused('POST', '/api/v2/emails', { ...mail, cc: 'a@b.test' }, 'invalid body: cc must be an array of strings');
  await refused('POST', '/api/v2/emails', { ...mail, body_html: 5 }, 'invalid body: body_html must be a string');
  await refused('POST', '/api/v2/emails', [mail], 'invalid body');
  // null is "not given" where the pipeline reads it so, and unknown fields are ignored.
  const sent = await call('POST', '/api/v2/emails', { ...mail, cc: null, bcc: null, body_html: null, attachments: 'x' });
  assert.equal(sent[0], 202);

  // The message log's query: numbers read from text, an empty value is the default.
  await refused('GET', '/api/v2/messages?limit=abc', undefined, 'invalid query: limit must be a whole number of at least 1');
  await refused('GET', '/api/v2/messages?limit=0', undefined, 'invalid query: limit must be a whole number of at least 1');
  await refused('GET', '/api/v2/messages?offset=-1', undefined, 'invalid query: offset must be a whole number of at least 0');
  await refused('GET', '/api/v2/messages?status=lost', undefined, 'invalid query: status must be queued, sent, bounced');
  // A parameter given twice arrives as a list.
  await refused('GET', '/api/v2/messages?recipient=a&recipient=b', undefined, 'invalid query: recipient must be given once, as text');
  const page = await call('GET', '/api/v2/messages?limit=&offset=0&limit=');
  assert.equal(page[0], 400, 'limit twice is a list');
  assert.equal((await call('GET', '/api/v2/messages?limit=&offset='))[0], 200);
  assert.equal((await call('GET', '/api/v2/messages?limit=2'))[1].data.length, 1);

  // Lists (spec.md: name is required).
  await refused('POST', '/api/v2/lists', {}, 'name is required');
  await refused('POST', '/api/v2/lists', { name: '  ' }, 'name is required');
  await refused('POST', '/api/v2/lists', { name: 5 }, 'invalid body: name must be a string');
  await refused('POST', '/api/v2/lists', { name: 'News', double_opt_in: 'yes' }, 'invalid body: double_opt_in must be a boolean');
  await refused('POST', '/api/v2/lists', 'News', 'invalid body');
  const [created, list] = await call('POST', '/api/v2/lists', { name: 'News', description: null, double_opt_in: null });
  assert.equal(created, 201);
  await refused('PATCH', `/api/v2/lists/${list.id}`, { name: '' }, 'name is required');
  await refused('PATCH', `/api/v2/lists/${list.id}`, { from_name: ['x'] }, 'invalid body: from_name must be a string');
  assert.equal((await call('PATCH', `/api/v2/lists/${list.id}`, { from_name: 'Acme', name: null }))[1].from_name, 'Acme');
  await refused(
    'GET',
    `/api/v2/lists/${list.id}/subscribers?status=gone`,
    undefined,
    'invalid query: status must be pending, active, unsubscribed',
  );
  await refused(
    'GET',
    `/api/v2/lists/${list.id}/subscribers?limit=x`,
    undefined,
    'invalid query: limit must be a whole number of at least 1',
  );
  // Subscribers (spec.md: invalid email: <detail>) and the import (csv body required).
  await refused('POST', `/api/v2/lists/${list.id}/subscribers`, {}, 'invalid email: email is required');
  await refused('POST', `/api/v2/lists/${list.id}/subscribers`, { email: 5 }, 'invalid email: email is required');
  await refused(
    'POST',
    `/api/v2/lists/${list.id}/subscribers`,
    { email: 'ann@rcpt.test', tags: 'a' },
    'invalid body: tags must be an array of strings',
  );
  await refused('POST', `/api/v2/lists/${list.id}/subscribers`, { email: 'ann@rcpt.test', name: 5 }, 'invalid body: name must be a string');
  assert.equal((await call('POST', `/api/v2/lists/${list.id}/subscribers`, { email: 'ann@rcpt.test', name: null, tags: null }))[0], 201);
  await refused('POST', `/api/v2/lists/${list.id}/subscribers/import`, {}, 'csv body required');
  await refused('POST', `/api/v2/lists/${list.id}/subscribers/import`, { csv: 5 }, 'csv body required');
  // A broadcast (spec.md: subject and body_html required).
  await refused('POST', `/api/v2/lists/${list.id}/broadcast`, {}, 'subject and body_html required');
  await refused(
    'POST',
    `/api/v2/lists/${list.id}/broadcast`,
    { subject: 'News', body_html: 5 },
    'invalid body: body_html must be a string',
  );
  await refused(
    'POST',
    `/api/v2/lists/${list.id}/broadcast`,
    { subject: 'News', body_html: '<p>x</p>', preheader: 5 },
    'invalid body: preheader must be a string',
  );
  // Sequences and steps (spec.md: name is required; subject is required).
  await refused('POST', '/api/v2/sequences', {}, 'name is required');
  await refused('POST', '/api/v2/sequences', { name: 'Welcome' }, 'list_id is required');
  await refused(
    'POST',
    '/api/v2/sequences',
    { name: 'Welcome', list_id: list.id, trigger: 'signup' },
    "trigger must be 'subscribe' (the only trigger)",
  );
  const [made, seq] = await call('POST', '/api/v2/sequences', { name: 'Welcome', list_id: list.id, trigger: null });
  assert.equal(made, 201);
  const step = { position: 0, delay_hours: 0, subject: 'Hello', body_text: 'Hi' };
  await refused('POST', `/api/v2/sequences/${seq.id}/steps`, {}, 'subject is required');
  await refused('POST', `/api/v2/sequences/${seq.id}/steps`, { ...step, position: '0' }, 'invalid body: position must be an integer');
  await refused('POST', `/api/v2/sequences/${seq.id}/steps`, { ...step, position: 1.5 }, 'position must be a whole number from 0 to 10000');
  await refused(
    'POST',
    `/api/v2/sequences/${seq.id}/steps`,
    { ...step, delay_hours: -1 },
    'delay_hours must be a whole number from 0 to 8784',
  );
  await refused('POST', `/api/v2/sequences/${seq.id}/steps`, { ...step, delay_hours: null }, 'delay_hours is required');
  assert.equal((await call('POST', `/api/v2/sequences/${seq.id}/steps`, { ...step, body_html: null }))[0], 201);

  // The team inbox (svc additions), from the send's Sent copy.
  const [, items] = await call('GET', '/api/v2/inbox/items?folder=sent&kind=');
  const item = items.data[0];
  await refused('GET', '/api/v2/inbox/items?folder=spam', undefined, "folder must be inbox or sent, not 'spam'");
  await refused(
    'GET',
    '/api/v2/inbox/items?kind=spam',
    undefined,
    "kind must be one of mail, reply, auto_reply, bounce, complaint, sent, not 'spam'",
  );
  await refused('GET', '/api/v2/inbox/threads?view=spam', undefined, "view must be one of all, inbox, archived, not 'spam'");
  await refused('GET', '/api/v2/inbox/threads?offset=x', undefined, 'invalid query: offset must be a whole number of at least 0');
  assert.equal((await call('GET', '/api/v2/inbox/threads?view=&search='))[0], 200);
  await refused('PATCH', `/api/v2/inbox/threads/${item.thread_id}`, {}, 'give read or archived (true or false)');
  await refused('PATCH', `/api/v2/inbox/threads/${item.thread_id}`, { read: 'yes' }, 'read must be true or false');
  await refused('PATCH', `/api/v2/inbox/threads/${item.thread_id}`, { archived: null }, 'archived must be true or false');
  await refused('POST', `/api/v2/inbox/items/${item.id}/reply`, {}, 'a reply needs text or html');
  await refused('POST', `/api/v2/inbox/items/${item.id}/reply`, { text: 5 }, 'invalid body: text must be a string');
  await refused('POST', `/api/v2/inbox/items/${item.id}/reply`, { text: 'x', to: ['a@b.test'] }, 'invalid body: to must be a string');
  assert.equal((await call('POST', `/api/v2/inbox/items/${item.id}/reply`, { text: 'More.', html: null, from: null }))[0], 202);

  // A refusal comes before the work: nothing was stored by any of the refused sends.
  assert.equal((await s.daemon.service.messages.list(s.ws, {})).total, 2);
  // The texts are the parser's own, not a copy of them.
  assert.throws(() => parseSendRequest({ ...mail, to: 'x' }), { message: 'invalid body: to must be an array of strings' });
});

/** Values of every JSON type, and the texts a query string can carry. */
const JSON_VALUES: unknown[] = [undefined, null, 0, 1, -1, 1.5, true, false, '', 'x', ' ', 'a@b.test', [], ['x'], [1], {}, { a: 1 }];
const QUERY_VALUES: unknown[] = [undefined, '', 'x', '0', '1', '-1', '1.5', 'true', ['1', '2'], 'inbox', 'sent', 'all', 'queued'];

/** A value its schema accepts, for the fields a mutation leaves alone. */
function sample(schema: any): unknown {
  if (schema.anyOf) return sample(schema.anyOf[0]);
  if (schema.enum) return schema.enum.find((v: unknown) => v !== '') ?? schema.enum[0];
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  if (type === 'object') return Object.fromEntries((schema.required ?? []).map((k: string) => [k, sample(schema.properties[k])]));
  if (type === 'array') return [sample(schema.items)];
  if (type === 'integer' || type === 'number') return schema.minimum ?? 0;
  if (type === 'boolean') return true;
  return 'a@b.test';
}

test('no request schema is stricter than the parser it borrows its texts from: whatever ajv refuses, the parser refuses', async (t) => {
  const s = await sending(t, { deliver: false });
  const routes: RouteOptions[] = [];
  const app = await buildApi(s.daemon.service, { onRoute: (r) => void routes.push(r) });
  t.after(() => app.close());
  await app.ready();
  const compile = validatorCompiler();
  const parts: [RequestPart, 'body' | 'querystring'][] = [
    ['body', 'body'],
    ['querystring', 'querystring'],
  ];
  let checked = 0;
  for (const route of routes) {
    for (const [part, key] of parts) {
      const schema = (route.schema as any)?.[key];
      if (!schema) continue;
      const explain = route.config?.explain?.[part] as ((input: unknown) => unknown) | undefined;
      const where = `${route.method} ${route.url} ${part}`;
      assert.ok(explain, `${where}: a schema that runs needs the parser that explains its refusals`);
      const validate = compile({ schema, method: String(route.method), url: route.url, httpPart: part });
      const base = sample(schema) as Record<string, unknown>;
      const inputs: unknown[] = part === 'body' ? [null, [], 'x', 5, {}] : [{}];
      for (const field of Object.keys(schema.properties ?? {})) {
        for (const v of part === 'body' ? JSON_VALUES : QUERY_VALUES) {
          const input = { ...base };
          if (v === undefined) delete input[field];
          else input[field] = v;
          inputs.push(input);
        }
      }
      for (const input of inputs) {
        const copy = structuredClone(input);
        if (validate(copy)) continue;
        checked += 1;
        let threw: unknown = null;
        try {
          explain(structuredClone(input));
        } catch (e) {
          threw = e;
        }
        assert.ok(isSvcError(threw), `${where}: ajv refused ${JSON.stringify(input)} but the parser took it (${String(threw)})`);
        assert.equal((threw as { spec: { http: number } }).spec.http, 400, `${where}: ${JSON.stringify(input)}`);
      }
    }
  }
  // Every documented route with a request was seen (a route could not slip by without a schema).
  const seen = new Set(routes.filter((r) => (r.schema as any)?.body || (r.schema as any)?.querystring).map((r) => `${r.method} ${r.url}`));
  for (const r of [
    'POST /api/v2/emails',
    'GET /api/v2/messages',
    'POST /api/v2/lists',
    'PATCH /api/v2/lists/:id',
    'GET /api/v2/lists/:id/subscribers',
    'POST /api/v2/lists/:id/subscribers',
    'POST /api/v2/lists/:id/subscribers/import',
    'POST /api/v2/lists/:id/broadcast',
    'POST /api/v2/sequences',
    'POST /api/v2/sequences/:id/steps',
    'GET /api/v2/inbox/threads',
    'PATCH /api/v2/inbox/threads/:id',
    'GET /api/v2/inbox/items',
    'POST /api/v2/inbox/items/:id/reply',
  ])
    assert.ok(seen.has(r), `${r} has a request schema`);
  assert.ok(checked > 300, `refusals checked: ${checked}`);
});

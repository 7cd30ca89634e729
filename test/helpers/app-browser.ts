// The web app driven without a browser (test/daemon/app*.test.ts): a cookie jar for one origin,
// forms posted as a browser posts them (with Origin), and a person signed in through their link.
import assert from 'node:assert/strict';
import type { TestContext } from 'node:test';
import type { startTestDaemon } from './daemon.js';
import { sending, settled, type Sending } from './sending.js';
import { migratedSchemaUrl, pgLocation } from './pg.js';
import { replyTo, transact } from './mx.js';
import type { Workspace } from '../../src/model/workspace.js';

/** A browser's cookie jar for one origin, enough for these pages (no redirects followed). */
export function browser(api: string) {
  const jar = new Map<string, string>();
  return {
    jar,
    async go(method: 'GET' | 'POST', path: string, form?: Record<string, string>, headers: Record<string, string> = {}) {
      const r = await fetch(`${api}${path}`, {
        method,
        redirect: 'manual',
        headers: {
          cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; '),
          ...(form ? { 'content-type': 'application/x-www-form-urlencoded', origin: api } : {}),
          ...headers,
        },
        ...(form ? { body: new URLSearchParams(form).toString() } : {}),
      });
      for (const c of r.headers.getSetCookie()) {
        const [pair] = c.split(';');
        const [k, v] = [pair!.slice(0, pair!.indexOf('=')), pair!.slice(pair!.indexOf('=') + 1)];
        if (/max-age=0/i.test(c)) jar.delete(k);
        else jar.set(k, v);
      }
      return {
        status: r.status,
        location: r.headers.get('location'),
        html: await r.text(),
        headers: r.headers,
        cookies: r.headers.getSetCookie(),
      };
    },
  };
}
export const formOf = (html: string) => /name="form" value="([^"]+)"/.exec(html)?.[1] ?? '';

/** A browser of a person just added to `ws` with `role`, signed in through their link. */
export async function signedInAs(
  d: Pick<Awaited<ReturnType<typeof startTestDaemon>>, 'daemon' | 'api'>,
  ws: Workspace,
  email: string,
  role: string,
) {
  const u = await d.daemon.service.people.create(ws, { email, role });
  // With a system sender the link was mailed; the operator's reset gives one here.
  const url = u.sign_in_url ?? (await d.daemon.service.people.reset(ws, email)).sign_in_url;
  const b = browser(d.api);
  const path = new URL(url).pathname;
  const ask = await b.go('GET', path);
  assert.equal((await b.go('POST', path, { form: formOf(ask.html), password: 'a long enough password' })).status, 303);
  return b;
}

/**
 * A trial workspace `acme` on `backend` whose mail Hello to jane@rcpt.test she answered through the
 * MX with this HTML: the thread the inbox tests read.
 */
export async function answeredThread(t: TestContext, backend: string, html: string): Promise<Sending & { messageId: string }> {
  const pgUrl = backend === 'postgres' ? await migratedSchemaUrl(t) : null;
  const s = await sending(t, { plan: 'trial', ...(pgUrl ? { store: pgLocation(pgUrl) } : {}) });
  const sent = await s.post({ from: 'hello@acme.test', to: ['jane@rcpt.test'], subject: 'Hello', body_html: '<p>Hello</p>' });
  const m = await settled(s, sent.body.id);
  const mail = replyTo('jane@rcpt.test', 'hello@acme.test', m.message_id).replace(
    '\r\n\r\nThanks, that helps.',
    `\r\nContent-Type: text/html\r\n\r\n${html}`,
  );
  assert.match((await transact(s.daemon.url('mx'), 'jane@rcpt.test', ['hello@acme.test'], mail)).end, /^250 /);
  return Object.assign(s, { messageId: m.message_id as string });
}

// The web app's sign-in (CONTRACT.md "The web app"), on the API port under /app/. Sessions are an
// HTTP-only cookie (SameSite=Lax; Secure when the base URL is https) whose token the store keeps
// only as a hash. Every form post must come from this origin (Origin and Sec-Fetch-Site) and carry
// a token another site cannot know: before sign-in, the value of a SameSite=Strict cookie set with
// the form (double submit); after, an HMAC of the session's token. The API's open CORS rule does
// not reach /app/ (api.ts).
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Service } from '../../../../src/service.js';
import { isSvcError, type SvcError } from '../../../../src/errors.js';
import { PASSWORD_MIN } from '../../../../src/people/password.js';
import { SESSION_DAYS, formToken } from '../../../../src/people/sign-in.js';
import { choosePasswordPage, homePage, linkNotValidPage, signInPage } from '../pages.js';
import { FORM_COOKIE, SESSION_COOKIE, appSession } from '../session.js';
import { appKeyRoutes } from './keys.js';
import { appPeopleRoutes } from './people.js';
import { appAddressRoutes } from './addresses.js';
import { appInboxRoutes } from './inbox.js';
import { appDomainRoutes } from './domains.js';
import { appWebhookRoutes } from './webhooks.js';
import { appWorkspaceRoutes } from './workspace.js';
import { inboxLive } from '../../inbox-live.js';

/** The pages' one script, read once (assets/app.js). */
const APP_JS = readFileSync(fileURLToPath(new URL('../assets/app.js', import.meta.url)), 'utf8');

/** A sign-in form is a few hundred bytes; anything much larger is not one. */
const FORM_BODY_MAX = 8 * 1024;

export function appRoutes(app: FastifyInstance, service: Service): void {
  const { cookie, page, refuse, crossSite, preForm, preFormOk, signedIn, formOk, formOf } = appSession(service);
  const startSession = (reply: FastifyReply, token: string) =>
    reply.header('set-cookie', [
      cookie(SESSION_COOKIE, token, { maxAge: SESSION_DAYS * 86_400, sameSite: 'lax' }),
      cookie(FORM_COOKIE, '', { maxAge: 0, sameSite: 'strict' }),
    ]);

  const live = inboxLive(app, service);
  void app.register(async (scope) => {
    // Forms only, small, here alone (the JSON API keeps its own parser).
    scope.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: FORM_BODY_MAX }, (_req, body, done) =>
      done(null, new URLSearchParams(body as string)),
    );
    appKeyRoutes(scope, service);
    appPeopleRoutes(scope, service);
    appAddressRoutes(scope, service);
    appInboxRoutes(scope, service, live);
    appDomainRoutes(scope, service);
    appWebhookRoutes(scope, service);
    appWorkspaceRoutes(scope, service);

    scope.get('/app/app.js', async (_req, reply) =>
      reply
        .headers({ 'content-type': 'text/javascript; charset=utf-8', 'cache-control': 'no-cache', 'x-content-type-options': 'nosniff' })
        .send(APP_JS),
    );

    // A browser sent to the API port's root (the base URL typed in) lands in the web app.
    scope.get('/', { schema: { hide: true } }, async (_req, reply) => reply.redirect('/app/', 302));
    scope.get('/app', async (_req, reply) => reply.redirect('/app/', 303));
    scope.get('/app/', async (req, reply) => {
      const s = await signedIn(req);
      if (!s) return reply.headers({ 'cache-control': 'no-store' }).redirect('/app/sign-in', 303);
      const names = new Map((await service.store.workspaces.list()).map((w) => [w.id, w.name]));
      const workspaces = s.who.memberships.flatMap((m) =>
        names.has(m.workspace_id) ? [{ name: names.get(m.workspace_id)!, role: m.role }] : [],
      );
      return page(reply, 200, homePage(formToken(s.token), s.who.account, workspaces));
    });

    scope.get('/app/sign-in', async (req, reply) => {
      if (await signedIn(req)) return reply.redirect('/app/', 303);
      return page(reply, 200, signInPage(preForm(reply)));
    });
    scope.post('/app/sign-in', async (req, reply) => {
      if (crossSite(req)) return refuse(reply, 'this form was sent from another site.');
      const form = formOf(req);
      const email = (form.get('email') ?? '').slice(0, 320);
      if (!preFormOk(req, form))
        return page(
          reply,
          403,
          signInPage(preForm(reply), { email, problem: 'this form expired or did not come from this page. Please sign in again.' }),
        );
      try {
        const { session } = await service.signIn.signIn(email, form.get('password') ?? '', req.ip);
        startSession(reply, session);
        return reply.redirect('/app/', 303);
      } catch (e) {
        if (!isSvcError(e) || (e.kind !== 'sign_in_failed' && e.kind !== 'rate_limited')) throw e;
        if (e.kind === 'rate_limited') reply.headers((e as SvcError).headers ?? {});
        return page(
          reply,
          e.kind === 'rate_limited' ? 429 : 401,
          signInPage(preForm(reply), { email, problem: e.kind === 'sign_in_failed' ? 'wrong email or password.' : `${e.message}.` }),
        );
      }
    });

    scope.get<{ Params: { token: string } }>('/app/sign-in/:token', async (req, reply) => {
      const holder = await service.signIn.linkHolder(req.params.token);
      if (!holder) return page(reply, 404, linkNotValidPage());
      return page(reply, 200, choosePasswordPage(preForm(reply), holder.email, { min: PASSWORD_MIN }));
    });
    scope.post<{ Params: { token: string } }>('/app/sign-in/:token', async (req, reply) => {
      if (crossSite(req)) return refuse(reply, 'this form was sent from another site.');
      const form = formOf(req);
      const holder = await service.signIn.linkHolder(req.params.token);
      if (!holder) return page(reply, 404, linkNotValidPage());
      if (!preFormOk(req, form))
        return page(
          reply,
          403,
          choosePasswordPage(preForm(reply), holder.email, {
            min: PASSWORD_MIN,
            problem: 'this form expired or did not come from this page. Please try again.',
          }),
        );
      try {
        const { session } = await service.signIn.choosePassword(req.params.token, form.get('password') ?? '');
        startSession(reply, session);
        return reply.redirect('/app/', 303);
      } catch (e) {
        if (isSvcError(e) && e.kind === 'invalid_argument')
          return page(reply, 400, choosePasswordPage(preForm(reply), holder.email, { min: PASSWORD_MIN, problem: `${e.message}.` }));
        if (isSvcError(e) && e.kind === 'not_found') return page(reply, 404, linkNotValidPage());
        throw e;
      }
    });

    scope.post('/app/sign-out', async (req, reply) => {
      if (crossSite(req)) return refuse(reply, 'this form was sent from another site.');
      const s = await signedIn(req);
      if (s) {
        if (!formOk(s.token, formOf(req))) return refuse(reply, 'this form did not come from this page.');
        await service.signIn.signOut(s.token);
      }
      reply.header('set-cookie', cookie(SESSION_COOKIE, '', { maxAge: 0, sameSite: 'lax' }));
      return reply.redirect('/app/sign-in', 303);
    });
  });
}

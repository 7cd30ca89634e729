// What every page of the web app shares (routes/sign-in.ts, routes/keys.ts): the cookies, who is
// signed in, the refusal of cross-site posts and of forms without their token, and the workspace a
// page is about with the person's role there (not a member: 404, as for an id of another
// workspace; a role that may not: 403).
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { parse as parseCookies, serialize } from 'cookie';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Service } from '../../../src/service.js';
import { errorKinds, isSvcError } from '../../../src/errors.js';
import { ROLE_MAY, type Role } from '../../../src/model/person.js';
import type { Workspace } from '../../../src/model/workspace.js';
import { formToken, type SignedIn } from '../../../src/people/sign-in.js';
import { APP_HEADERS, appCsp, notFoundPage, refusedPage } from './pages.js';

export const SESSION_COOKIE = 'svc_session';
export const FORM_COOKIE = 'svc_form';

/**
 * A refusal of the service a page says as a sentence, with the status the error registry gives it:
 * the request's fault (4xx). Anything else is an error of ours, shown as one.
 */
export function refusalOf(e: unknown): { code: number; text: string } | null {
  if (!isSvcError(e)) return null;
  const code = errorKinds[e.kind].http;
  return code >= 400 && code < 500 ? { code, text: `${e.message}.` } : null;
}

export const same = (a: string, b: string) => a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));

/** A signed-in member on one of their workspace's pages. */
export interface Member {
  token: string;
  who: SignedIn;
  ws: Workspace;
  role: Role;
}

export function appSession(service: Service) {
  // Read per request: a daemon on port 0 learns its base URL once it listens (serve.ts).
  const base = () => new URL(service.deps.config.baseUrl);
  const cookie = (name: string, value: string, o: { maxAge: number; sameSite: 'lax' | 'strict' }) =>
    serialize(name, value, { httpOnly: true, secure: base().protocol === 'https:', sameSite: o.sameSite, path: '/app/', maxAge: o.maxAge });
  const cookies = (req: FastifyRequest) => parseCookies(req.headers.cookie ?? '');
  /** `images`: remote images allowed (a message whose reader asked for them). */
  const page = (reply: FastifyReply, code: number, html: string, opts: { images?: boolean } = {}) =>
    reply
      .code(code)
      .headers(opts.images ? { ...APP_HEADERS, 'content-security-policy': appCsp(true) } : APP_HEADERS)
      .send(html);

  const signedIn = async (req: FastifyRequest): Promise<{ token: string; who: SignedIn } | null> => {
    const token = cookies(req)[SESSION_COOKIE];
    if (!token || token.length > 100) return null;
    const who = await service.signIn.session(token);
    return who ? { token, who } : null;
  };

  /**
   * A post from another site, refused before anything else. A browser's Sec-Fetch-Site decides
   * when it is there (pages cannot set it; with it a same-origin post may carry `Origin: null`,
   * as Chromium sends under a strict Referrer-Policy); otherwise the Origin header, when sent.
   * Found with a real browser: checking Origin alone refused Chromium's own same-origin posts.
   */
  const crossSite = (req: FastifyRequest): boolean => {
    const site = req.headers['sec-fetch-site'];
    if (typeof site === 'string') return site !== 'same-origin' && site !== 'none';
    const origin = req.headers.origin;
    if (origin === undefined) return false;
    return origin !== base().origin && origin !== `${req.protocol}://${req.headers.host ?? ''}`;
  };
  const refuse = (reply: FastifyReply, why: string) => page(reply, 403, refusedPage(why));
  const formOf = (req: FastifyRequest) => (req.body instanceof URLSearchParams ? req.body : new URLSearchParams());
  const formOk = (token: string, form: URLSearchParams) => same(form.get('form') ?? '', formToken(token));

  async function member(req: FastifyRequest, reply: FastifyReply, name: string, may: keyof typeof ROLE_MAY): Promise<Member | null> {
    const s = await signedIn(req);
    if (!s) {
      void reply.headers({ 'cache-control': 'no-store' }).redirect('/app/sign-in', 303);
      return null;
    }
    const ws = await service.store.workspaces.getByName(name.slice(0, 63));
    const m = ws && s.who.memberships.find((x) => x.workspace_id === ws.id);
    if (!ws || !m) {
      void page(reply, 404, notFoundPage('workspace of yours'));
      return null;
    }
    if (!(ROLE_MAY[may] as readonly Role[]).includes(m.role)) {
      void page(
        reply,
        403,
        refusedPage(
          `only ${ROLE_MAY[may].map((r) => `${r}s`).join(' and ')} may do this in a workspace; you are ${m.role === 'admin' ? 'an' : 'a'} ${m.role} of ${ws.name}.`,
        ),
      );
      return null;
    }
    return { ...s, ws, role: m.role };
  }

  return {
    cookie,
    cookies,
    page,
    signedIn,
    crossSite,
    refuse,
    formOf,
    /** A fresh pre-session form token, set as a cookie too. */
    preForm(reply: FastifyReply): string {
      const token = randomBytes(24).toString('base64url');
      reply.header('set-cookie', cookie(FORM_COOKIE, token, { maxAge: 3600, sameSite: 'strict' }));
      return token;
    },
    preFormOk(req: FastifyRequest, form: URLSearchParams): boolean {
      const expected = cookies(req)[FORM_COOKIE];
      const given = form.get('form');
      return !!expected && !!given && same(given, expected);
    },
    /** Whether a signed-in form carries its session's token. */
    formOk,
    /**
     * The signed-in person on a page of workspace `name` that needs `may`: the workspace and role,
     * or null once the answer is sent (sign-in redirect, 404, 403).
     */
    member,
    /**
     * A form posted to a page of workspace `name` that needs `may`: from this origin, by a member
     * who may, with the page's token. The person and the form, or null once the refusal is sent.
     */
    async memberForm(
      req: FastifyRequest,
      reply: FastifyReply,
      name: string,
      may: keyof typeof ROLE_MAY,
    ): Promise<{ m: Member; form: URLSearchParams } | null> {
      if (crossSite(req)) {
        void refuse(reply, 'this form was sent from another site.');
        return null;
      }
      const m = await member(req, reply, name, may);
      if (!m) return null;
      const form = formOf(req);
      if (!formOk(m.token, form)) {
        void refuse(reply, 'this form did not come from this page.');
        return null;
      }
      return { m, form };
    },
  };
}

export type AppSession = ReturnType<typeof appSession>;

// The web app's pages (CONTRACT.md "The web app"), rendered on the server: plain HTML, no script,
// nothing remote, readable without colour and at 360 px. Every value is escaped (html.ts).
// Forms carry a token against cross-site requests (routes/sign-in.ts).

import { html, joined, raw, type Html } from '../../../src/html.js';
import { PAGE_HEADERS } from '../list-pages.js';

/**
 * The app's policy: nothing remote, script only from /app/app.js (the live inbox), fetches and
 * events only from here, forms only to here, never framed. A message's HTML in its sandboxed srcdoc
 * frame inherits it, so its images are blocked unless the page allows them (`images`).
 */
export const appCsp = (images = false) =>
  `default-src 'none'; style-src 'unsafe-inline'; script-src 'self'; connect-src 'self'${images ? '; img-src https: http: data:' : ''}; form-action 'self'; frame-ancestors 'none'; base-uri 'none'`;

/** The list pages' headers (never cached or indexed), the app's policy, and: */
export const APP_HEADERS = {
  ...PAGE_HEADERS,
  'content-security-policy': appCsp(),
  // Same-origin only: a sign-in link's token never leaves in a Referer, and the browser still says
  // where its form posts come from.
  'referrer-policy': 'same-origin',
  'x-frame-options': 'DENY',
};

/** A workspace page's links, by what the person's role may see. */
export interface Nav {
  ws: string;
  role: string;
}
export type WsPage = 'inbox' | 'messages' | 'workspace' | 'domains' | 'addresses' | 'keys' | 'webhooks' | 'people';
export function wsNav(nav: Nav, current: WsPage): Html {
  const base = `/app/w/${encodeURIComponent(nav.ws)}`;
  const pages: Array<[WsPage, string, string]> = [
    ['inbox', 'inbox', 'Inbox'],
    ['messages', 'messages', 'Messages'],
    ['workspace', 'workspace', 'Workspace'],
  ];
  if (nav.role !== 'member')
    pages.push(
      ['domains', 'domains', 'Domains'],
      ['addresses', 'addresses', 'Addresses'],
      ['keys', 'keys', 'API keys'],
      ['webhooks', 'webhooks', 'Webhooks'],
      ['people', 'people', 'People'],
    );
  const links = pages.map(([id, path, label]) =>
    id === current ? html`<strong aria-current="page">${label}</strong>` : html`<a href="${base}/${path}">${label}</a>`,
  );
  return html`<nav aria-label="${nav.ws}"><a href="/app/">svc</a> › ${nav.ws}: ${joined(links, ' · ')}</nav>
`;
}
const STYLE =
  'body{font:1rem/1.5 system-ui,sans-serif;max-width:48rem;margin:1rem auto;padding:0 1rem;color:#111;background:#fff}' +
  'nav{margin-bottom:1rem}form[role=search]{display:flex;flex-wrap:wrap;gap:0 .5rem;align-items:center}form[role=search] label{flex-basis:100%}form[role=search] input{flex:1;width:auto}form[role=search] button{margin-top:0}' +
  'textarea{font:inherit;width:100%;box-sizing:border-box;padding:.5rem;border:1px solid #555}.inline{display:inline}' +
  // The inbox: a new thread is bold and says "New"; tags are words in a box, not colours.
  '.threads{list-style:none;padding:0}.threads li{border-bottom:1px solid #ccc;padding:.5rem 0;overflow-wrap:anywhere}.threads a{display:block;text-decoration:none;color:inherit}' +
  '.unread .subject,.unread .who{font-weight:bold}.who{margin-right:.5rem}.meta{font-size:.875rem;color:#333}.tag{border:1px solid #111;padding:0 .25rem;font-size:.75rem;font-weight:bold}' +
  'article{border-top:2px solid #111;margin-top:1.5rem}article h2{font-size:1.1rem}iframe.mail{width:100%;height:16rem;border:1px solid #555;resize:vertical}pre.text{white-space:pre-wrap;overflow-wrap:anywhere;font:inherit}' +
  'label{display:block;margin:.75rem 0 .25rem}input{font:inherit;width:100%;box-sizing:border-box;padding:.5rem;border:1px solid #555}' +
  'button{font:inherit;margin-top:1rem;padding:.5rem 1rem;cursor:pointer}.problem{border-left:.25rem solid #111;padding-left:.75rem;font-weight:bold}' +
  'table{border-collapse:collapse;width:100%}td,th{text-align:left;padding:.25rem .5rem .25rem 0;vertical-align:top}' +
  // A wide table scrolls in its own box at 360 px rather than widen the page, and a shadow on the
  // side where more of it is says so (the shadows scroll with the box, the covers with its content:
  // at either end the cover hides that side's shadow); check boxes sit beside their labels.
  '.record{border-left:.25rem solid #ccc;padding-left:.75rem;margin:1rem 0}.record h3{font-size:1rem;margin:0}.record>div{margin:.25rem 0}' +
  '.copy{display:flex;gap:.25rem}.copy input{flex:1;font-family:monospace;font-size:.8rem}.copy button{margin-top:0}meter{width:10rem}' +
  '.wide{overflow-x:auto;background:linear-gradient(to right,#fff 30%,#fff0) left/2rem 100% no-repeat local,linear-gradient(to left,#fff 30%,#fff0) right/2rem 100% no-repeat local,' +
  'radial-gradient(farthest-side at 0 50%,#0004,#0000) left/.75rem 100% no-repeat scroll,radial-gradient(farthest-side at 100% 50%,#0004,#0000) right/.75rem 100% no-repeat scroll}' +
  'label.check{display:flex;gap:.5rem;align-items:center;margin:.25rem 0}label.check input{width:auto}td button{margin-top:0}' +
  // A heading of mail (a subject, an address) wraps anywhere rather than widen a phone's page;
  // focus is always drawn (a mail frame's too, which takes focus for its links); a skip link first;
  // text for screen readers alone (a table's column of buttons).
  'h1{overflow-wrap:anywhere}:focus-visible,iframe.mail:focus-within{outline:3px solid #1a56db;outline-offset:2px}' +
  '.skip{position:absolute;left:-999rem}.skip:focus{left:1rem;top:.5rem;background:#fff;padding:.25rem .5rem;z-index:1}' +
  '.sr{position:absolute;width:1px;height:1px;overflow:hidden;clip-path:inset(50%);white-space:nowrap}';

/** The header of a table's column of buttons: empty to the eye, named for a screen reader. */
export const ACTIONS_TH = html`<th><span class="sr">Actions</span></th>`;

/** A table that scrolls sideways in its own box on a narrow screen. */
export const wideTable = (table: Html) =>
  html`<div class="wide" tabindex="0" role="region" aria-label="Table (scrolls sideways on a narrow screen)">${table}</div>`;

/** `script`: the page loads /app/app.js (its live region is refreshed when mail arrives). */
export function appPage(title: string, body: Html, opts: { script?: boolean; nav?: Html } = {}): string {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · svc</title>
<style>${raw(STYLE)}</style>${opts.script && html`\n<script src="/app/app.js" defer></script>`}
</head>
<body>
<a class="skip" href="#main">Skip to content</a>
${opts.nav}<main id="main">
<h1>${title}</h1>
${body}
</main>
</body>
</html>
`.text;
}

/** The form token every signed-in form carries. */
export const tokenField = (form: string) => html`<input type="hidden" name="form" value="${form}">`;
/** A one-button form that posts to `action` (an action on one row of a table). */
export const postButton = (form: string, action: string, label: string, aria: string) =>
  html`<form method="post" action="${action}" class="inline">${tokenField(form)}<button type="submit" aria-label="${aria}">${label}</button></form>`;
/** A value to publish or keep, in a field that selects whole, with a copy button (app.js; without script the field is selected by hand). */
export const copyField = (value: string, label: string) =>
  html`<span class="copy"><input readonly aria-label="${label}" value="${value}"><button type="button" data-copy hidden>Copy</button></span>`;
/** A bar of `used` against `limit` (null: unlimited), with the figures in words so that it reads without colour. */
export const usageBar = (used: number, limit: number | null, unit = '') =>
  limit === null
    ? html`${used.toLocaleString('en')}${unit} (unlimited)`
    : html`<meter min="0" max="${limit}" value="${Math.min(used, limit)}" high="${limit * 0.8}" optimum="0">${used} of ${limit}</meter> ${used.toLocaleString('en')}${unit} of ${limit.toLocaleString('en')}${unit}${used >= limit && html` <strong>(reached)</strong>`}`;

/** Newer and older pages of a list, newest first. */
export const pager = (href: (page: number) => string, page: number, total: number, per: number) => {
  const last = Math.max(1, Math.ceil(total / per));
  if (last === 1) return null;
  return html`<p>${page > 1 && html`<a href="${href(page - 1)}" rel="prev">Newer</a> · `}Page ${page} of ${last}${page < last && html` · <a href="${href(page + 1)}" rel="next">Older</a>`}</p>`;
};

/** A problem, said first on the page ("Problem:" so that it reads without colour). */
export const problem = (text: string | undefined) => text && html`<p class="problem" role="alert">Problem: ${text}</p>\n`;

export const signInPage = (form: string, opts: { email?: string; problem?: string } = {}) =>
  appPage(
    'Sign in',
    html`${problem(opts.problem)}<form method="post" action="/app/sign-in">
${tokenField(form)}
<label for="email">Email</label><input id="email" name="email" type="email" autocomplete="username" required value="${opts.email ?? ''}">
<label for="password">Password</label><input id="password" name="password" type="password" autocomplete="current-password" required>
<button type="submit">Sign in</button>
</form>
<p>No password yet, or forgotten? Ask an owner or admin of your workspace for a sign-in link.</p>`,
  );

export const choosePasswordPage = (form: string, email: string, opts: { problem?: string; min: number }) =>
  appPage(
    'Choose your password',
    html`${problem(opts.problem)}<p>For ${email}. At least ${opts.min} characters; a few words you will remember are good.</p>
<form method="post">
${tokenField(form)}
<label for="username">Email</label><input id="username" name="username" type="email" autocomplete="username" readonly value="${email}">
<label for="password">New password</label><input id="password" name="password" type="password" autocomplete="new-password" minlength="${opts.min}" required>
<button type="submit">Save and sign in</button>
</form>`,
  );

export const linkNotValidPage = () =>
  appPage(
    'Link not valid',
    html`<p>This sign-in link was used already, has expired, or was replaced by a newer one. Ask an owner or admin of your workspace for a new one.</p>`,
  );

/** A page that says there is no such thing here, with the way back. */
export const notFoundPage = (what: string) => appPage('Not found', html`<p>There is no such ${what}. <a href="/app/">Back to svc</a></p>`);

export const homePage = (form: string, who: { name: string | null; email: string }, workspaces: Array<{ name: string; role: string }>) =>
  appPage(
    'svc',
    html`<p>Signed in as ${who.name ? `${who.name} <${who.email}>` : who.email}.</p>
<h2>Your workspaces</h2>
${
  workspaces.length
    ? html`<table><thead><tr><th>Workspace</th><th>Role</th>${ACTIONS_TH}</tr></thead><tbody>
${workspaces.map((w) => {
  const base = `/app/w/${encodeURIComponent(w.name)}`;
  return html`<tr><td>${w.name}</td><td>${w.role}</td><td><a href="${base}/inbox">Inbox</a>${w.role !== 'member' && html` · <a href="${base}/keys">API keys</a> · <a href="${base}/people">People</a> · <a href="${base}/addresses">Addresses</a>`}</td></tr>\n`;
})}</tbody></table>`
    : html`<p>None: you are not a member of any workspace now.</p>`
}
<form method="post" action="/app/sign-out">${tokenField(form)}<button type="submit">Sign out</button></form>`,
  );

export const refusedPage = (text: string) => appPage('Not allowed', html`${problem(text)}<p><a href="/app/">Back to svc</a></p>`);

export interface KeyRow {
  id: string;
  name: string;
  prefix: string;
  scopes: readonly string[];
  created_at: string;
  revoked_at: string | null;
}

/** A workspace's API keys (owners and admins): create one (its key shown once, in `created`), revoke one. */
export const keysPage = (
  form: string,
  nav: Nav,
  keys: KeyRow[],
  scopes: readonly string[],
  opts: { created?: { name: string; key: string }; problem?: string } = {},
) => {
  const base = `/app/w/${encodeURIComponent(nav.ws)}/keys`;
  return appPage(
    `API keys of ${nav.ws}`,
    html`${problem(opts.problem)}${
      opts.created &&
      html`<section aria-labelledby="new-key"><h2 id="new-key">New key: ${opts.created.name}</h2>
<p>Copy it now: it is not shown again (only its hash is kept).</p>
<p><input readonly aria-label="The new key" value="${opts.created.key}"></p></section>\n`
    }${
      keys.length
        ? wideTable(html`<table><thead><tr><th>Name</th><th>Key</th><th>Scopes</th><th>Created</th><th>Status</th></tr></thead><tbody>
${keys.map(
  (k) =>
    html`<tr><td>${k.name}</td><td>${k.prefix}…</td><td>${k.scopes.join(', ')}</td><td>${k.created_at.slice(0, 10)}</td><td>${
      k.revoked_at
        ? html`revoked ${k.revoked_at.slice(0, 10)}`
        : html`<form method="post" action="${base}/${encodeURIComponent(k.id)}/revoke">${tokenField(form)}<button type="submit" aria-label="Revoke ${k.name}">Revoke</button></form>`
    }</td></tr>\n`,
)}</tbody></table>`)
        : html`<p>No keys yet.</p>`
    }
<h2>Create a key</h2>
<form method="post" action="${base}">
${tokenField(form)}
<label for="name">Name</label><input id="name" name="name" required maxlength="100">
<fieldset><legend>Scopes</legend>
${scopes.map((s) => html`<label class="check"><input type="checkbox" name="scope" value="${s}"${(s === 'send' || s === 'read') && html` checked`}> ${s}</label>\n`)}</fieldset>
<button type="submit">Create key</button>
</form>`,
    { nav: wsNav(nav, 'keys') },
  );
};

export interface PersonRow {
  id: string;
  email: string;
  name: string | null;
  role: string;
  last_sign_in_at: string | null;
}

/** A workspace's people (owners and admins): add one (their sign-in link shown once, in `added`), change a role, remove one. */
export const peoplePage = (
  form: string,
  nav: Nav,
  people: PersonRow[],
  seats: { used: number; limit: number | null },
  opts: { added?: { email: string; url: string | null; mailed: boolean }; problem?: string; roles: readonly string[] },
) => {
  const base = `/app/w/${encodeURIComponent(nav.ws)}/people`;
  const roleSelect = (current: string, label: string, id?: string) =>
    html`<select${id && html` id="${id}"`} name="role" aria-label="${label}">${opts.roles.map((r) => html`<option${r === current && html` selected`}>${r}</option>`)}</select>`;
  return appPage(
    `People of ${nav.ws}`,
    html`${problem(opts.problem)}${
      opts.added &&
      html`<section aria-labelledby="added"><h2 id="added">Added ${opts.added.email}</h2>\n${
        opts.added.mailed
          ? html`<p>They were mailed an invitation.</p>`
          : opts.added.url
            ? html`<p>Send them this sign-in link: it works once, for 24 hours, and is not shown again.</p>
<p><input readonly aria-label="Their sign-in link" value="${opts.added.url}"></p>`
            : html`<p>They have an account already: they sign in with it and find this workspace there. (An operator makes them a new link with <code>svc users reset</code> if they need one.)</p>`
      }</section>\n`
    }<p>${seats.used} of ${seats.limit === null ? 'unlimited' : seats.limit} seats used</p>
${wideTable(html`<table><thead><tr><th>Person</th><th>Role</th><th>Last sign-in</th>${ACTIONS_TH}</tr></thead><tbody>
${people.map(
  (p) => html`<tr><td>${p.name ? `${p.name} <${p.email}>` : p.email}</td>
<td><form method="post" action="${base}/${encodeURIComponent(p.id)}/role">${tokenField(form)}${roleSelect(p.role, `Role of ${p.email}`)} <button type="submit">Change</button></form></td>
<td>${p.last_sign_in_at?.slice(0, 10) ?? 'never'}</td>
<td><form method="post" action="${base}/${encodeURIComponent(p.id)}/remove">${tokenField(form)}<button type="submit" aria-label="Remove ${p.email}">Remove</button></form></td></tr>\n`,
)}</tbody></table>`)}
<h2>Add a person</h2>
<form method="post" action="${base}">
${tokenField(form)}
<label for="email">Email</label><input id="email" name="email" type="email" required>
<label for="name">Name (optional)</label><input id="name" name="name" maxlength="200">
<label for="role">Role</label>${roleSelect('member', 'Role', 'role')}
<button type="submit">Add</button>
</form>`,
    { nav: wsNav(nav, 'people') },
  );
};

export interface AddressRow {
  id: string;
  address: string;
  status: string;
  domain: string;
}

/** A workspace's registered sender addresses (owners and admins): add one on a domain of the workspace, disable, enable or remove one. */
export const addressesPage = (form: string, nav: Nav, addresses: AddressRow[], opts: { problem?: string } = {}) => {
  const base = `/app/w/${encodeURIComponent(nav.ws)}/addresses`;
  const action = (a: AddressRow, verb: string, label: string) =>
    html`<form method="post" action="${base}/${encodeURIComponent(a.id)}/${verb}">${tokenField(form)}<button type="submit" aria-label="${label} ${a.address}">${label}</button></form>`;
  return appPage(
    `Sender addresses of ${nav.ws}`,
    html`${problem(opts.problem)}<p>Mail is sent only from an active address here, on a verified domain of the workspace.</p>
${
  addresses.length
    ? wideTable(html`<table><thead><tr><th>Address</th><th>Status</th>${ACTIONS_TH}${ACTIONS_TH}</tr></thead><tbody>
${addresses.map(
  (a) =>
    html`<tr><td>${a.address}</td><td>${a.status}</td><td>${a.status === 'active' ? action(a, 'disable', 'Disable') : action(a, 'enable', 'Enable')}</td><td>${action(a, 'remove', 'Remove')}</td></tr>\n`,
)}</tbody></table>`)
    : html`<p>No addresses yet.</p>`
}
<h2>Add an address</h2>
<form method="post" action="${base}">
${tokenField(form)}
<label for="address">Address (local@domain, on a domain of this workspace)</label><input id="address" name="address" type="email" required maxlength="254">
<button type="submit">Add</button>
</form>`,
    { nav: wsNav(nav, 'addresses') },
  );
};

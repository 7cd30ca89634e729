// The web app's workspace page and message log. Workspace: the plan, every quota of
// spec.md "Plan quotas" as a bar with its figures in words, and a trial's dates. Messages: the
// message log with its filters, and one message's `explain` as a timeline. Every role reads them;
// an owner also gets the form that deletes the workspace (its name typed again to confirm).
import type { TimelineEntry } from '../../../src/messages/explain.js';
import { html } from '../../../src/html.js';
import { appPage, pager, problem, tokenField, usageBar, wideTable, wsNav, type Nav } from './pages.js';

export interface QuotaRow {
  kind: string;
  used: number;
  limit: number | null;
  window: string | null;
  resets_at: string | null;
}

const QUOTA_LABEL: Record<string, string> = {
  api_sends: 'API and SMTP sends',
  inbox_sends: 'Replies from the inbox',
  ai_actions: 'AI actions',
  domains: 'Domains',
  addresses: 'Sender addresses',
  contacts: 'Newsletter contacts',
  seats: 'Team members',
  storage: 'Stored mail',
};
const day = (iso: string) => `${iso.slice(0, 16).replace('T', ' ')} UTC`;
/** Stored mail in the unit of its limit: GiB for the plans' (1, 10, 50 GiB), MiB below one. */
const unitOf = (limit: number | null) =>
  limit === null || limit >= 2 ** 30 ? { div: 2 ** 30, name: ' GiB' } : { div: 2 ** 20, name: ' MiB' };

export function workspacePage(
  nav: Nav,
  w: { plan: string; created_at: string; usage: QuotaRow[]; read_only_at: string | null; delete_at: string | null },
  now: Date,
  /** The operator's --upgrade-url, or null: then the page says how a plan is changed. */
  upgradeUrl: string | null,
  opts: { form: string; problem?: string },
): string {
  const trial =
    w.read_only_at &&
    html`<p>${now.toISOString() >= w.read_only_at ? html`<strong>The trial ended on ${day(w.read_only_at)}: the workspace is read-only.</strong>` : `The trial ends on ${day(w.read_only_at)}; the workspace is then read-only.`} Without a plan its data is deleted on <strong>${day(w.delete_at!)}</strong>, after warnings to its owners 14, 7 and 1 days before.</p>`;
  const rows = w.usage.map((q) => {
    const storage = q.kind === 'storage';
    const u = unitOf(q.limit);
    const round = (b: number) => Math.round((b / u.div) * 100) / 100;
    const bar = storage ? usageBar(round(q.used), q.limit === null ? null : round(q.limit), u.name) : usageBar(q.used, q.limit);
    return html`<tr><th scope="row">${QUOTA_LABEL[q.kind] ?? q.kind}${q.window && ` per ${q.window}`}</th><td>${bar}</td><td class="meta">${q.resets_at && `resets ${day(q.resets_at)}`}</td></tr>\n`;
  });
  return appPage(
    `Workspace ${nav.ws}`,
    // Plans are the operator's (svc workspaces set-plan): an owner is sent to the operator's upgrade
    // page when there is one, else told who changes it. This page is every quota refusal's upgrade_url.
    html`${problem(opts.problem)}<p id="plan">Plan: <strong>${w.plan}</strong>. Created ${day(w.created_at)}.${
      nav.role === 'owner' &&
      (upgradeUrl
        ? html` <a href="${upgradeUrl}" rel="noreferrer">Change the plan</a>`
        : html` The plan is changed by the operator of this svc (<code>svc workspaces set-plan ${nav.ws} PLAN</code>): ask them.`)
    }</p>
${trial}
${wideTable(html`<table><thead><tr><th>Quota</th><th>Used</th><th>Resets</th></tr></thead><tbody>
${rows}</tbody></table>`)}${nav.role === 'owner' && deleteForm(nav.ws, opts.form)}`,
    { nav: wsNav(nav, 'workspace') },
  );
}

/** Only owners see it; the route checks the role again. */
const deleteForm = (ws: string, form: string) => html`
<h2 id="delete">Delete this workspace</h2>
<p>Everything goes: its messages, team inbox, lists and subscribers, domains, addresses, keys, webhooks and members, at once for everyone, and it cannot be undone. Mail still queued is not sent.</p>
<form method="post" action="/app/w/${encodeURIComponent(ws)}/delete">
${tokenField(form)}
<label for="confirm">Type the workspace's name, <strong>${ws}</strong>, to confirm</label>
<input id="confirm" name="confirm" required autocomplete="off" spellcheck="false" maxlength="63">
<button type="submit">Delete ${ws} and all its data</button>
</form>`;

export interface MessageRow {
  id: string;
  to: string;
  subject: string;
  status: string;
  open_count: number;
  click_count: number;
  created_at: string;
}

export function messagesPage(
  nav: Nav,
  opts: { rows: MessageRow[]; total: number; status: string; to: string; page: number; per: number; statuses: readonly string[] },
): string {
  const base = `/app/w/${encodeURIComponent(nav.ws)}/messages`;
  const q = (page: number) => {
    const p = new URLSearchParams();
    if (opts.status) p.set('status', opts.status);
    if (opts.to) p.set('to', opts.to);
    if (page > 1) p.set('page', String(page));
    return `${base}${p.size ? `?${p}` : ''}`;
  };
  const rows = opts.rows.map(
    (m) =>
      html`<tr><td>${day(m.created_at)}</td><td><a href="${base}/${encodeURIComponent(m.id)}">${m.to}</a></td><td>${m.subject}</td><td><strong>${m.status}</strong></td><td>${m.open_count} / ${m.click_count}</td></tr>\n`,
  );
  return appPage(
    'Messages',
    html`<form method="get" action="${base}" role="search">
<label for="to">Recipient contains</label><input id="to" name="to" maxlength="254" value="${opts.to}">
<select name="status" aria-label="Status"><option value="">any status</option>${opts.statuses.map((s) => html`<option${s === opts.status && html` selected`}>${s}</option>`)}</select>
<button type="submit">Filter</button></form>
<p>${opts.total} message${opts.total === 1 ? '' : 's'}, newest first.</p>
${rows.length ? wideTable(html`<table><thead><tr><th>Accepted</th><th>To</th><th>Subject</th><th>Status</th><th>Opens / clicks</th></tr></thead><tbody>\n${rows}</tbody></table>`) : html`<p>None.</p>`}
${pager(q, opts.page, opts.total, opts.per)}`,
    { nav: wsNav(nav, 'messages') },
  );
}

export function explainPage(nav: Nav, m: { id: string; to: string; subject: string; status: string }, timeline: TimelineEntry[]): string {
  return appPage(
    `To ${m.to}`,
    html`<p><a href="/app/w/${encodeURIComponent(nav.ws)}/messages">All messages</a></p>
<p>${m.subject}: <strong>${m.status}</strong>.</p>
<h2>What happened</h2>
<ol class="timeline">
${timeline.map((e) => html`<li><span class="meta">${day(e.at)}</span> <strong>${e.stage}</strong>: ${e.detail}</li>\n`)}</ol>`,
    { nav: wsNav(nav, 'messages') },
  );
}

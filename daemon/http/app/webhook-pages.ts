// The web app's webhooks page: the workspace's endpoints (add one: its signing secret
// shown once; disable, enable, remove) and the delivery log, newest first, with a replay button per
// delivery (a new, freshly signed attempt). Owners and admins.
import type { AttemptView, EndpointView } from '../../../src/webhooks/webhooks.js';
import { html } from '../../../src/html.js';
import { ACTIONS_TH, appPage, copyField, postButton, problem, tokenField, wideTable, wsNav, type Nav } from './pages.js';

const when = (iso: string) => `${iso.slice(0, 19).replace('T', ' ')} UTC`;

export function webhooksPage(
  nav: Nav,
  form: string,
  endpoints: EndpointView[],
  attempts: AttemptView[],
  opts: { problem?: string; created?: { url: string; secret: string }; replayed?: AttemptView } = {},
): string {
  const base = `/app/w/${encodeURIComponent(nav.ws)}/webhooks`;
  const url = new Map(endpoints.map((e) => [e.id, e.url]));
  const created =
    opts.created &&
    html`<section aria-labelledby="new-endpoint"><h2 id="new-endpoint">New endpoint: ${opts.created.url}</h2>
<p>Its signing secret, to verify deliveries with. Copy it now: it is not shown again.</p>
<p>${copyField(opts.created.secret, 'The signing secret')}</p></section>\n`;
  const r = opts.replayed;
  const replayed =
    r &&
    html`<p role="status"><strong>Replayed:</strong> ${r.event} to ${url.get(r.endpoint_id) ?? r.endpoint_id}: ${r.ok ? `delivered (${r.status_code})` : `failed (${r.error ?? String(r.status_code)})`}.</p>\n`;
  const endpointRows = endpoints.map(
    (
      e,
    ) => html`<tr><td>${e.url}</td><td>${e.events.join(', ')}</td><td>${e.status}${e.disabled_reason && html`<br><span class="meta">${e.disabled_reason}</span>`}${e.failing_since && html`<br><span class="meta">failing since ${when(e.failing_since)}</span>`}</td>
<td>${e.status === 'enabled' ? postButton(form, `${base}/${encodeURIComponent(e.id)}/disable`, 'Disable', `Disable ${e.url}`) : postButton(form, `${base}/${encodeURIComponent(e.id)}/enable`, 'Enable', `Enable ${e.url}`)} ${postButton(form, `${base}/${encodeURIComponent(e.id)}/remove`, 'Remove', `Remove ${e.url}`)}</td></tr>\n`,
  );
  const attemptRows = attempts.map(
    (
      a,
    ) => html`<tr><td>${when(a.attempted_at)}</td><td>${a.event}${a.kind !== 'event' && ` (${a.kind})`}</td><td>${url.get(a.endpoint_id) ?? a.endpoint_id}</td>
<td>${a.ok ? `delivered, ${a.status_code}` : html`<strong>failed</strong>, ${a.status_code === null ? (a.error ?? 'no answer') : String(a.status_code)}`} <span class="meta">${a.duration_ms} ms, attempt ${a.attempt}</span></td>
<td>${postButton(form, `${base}/deliveries/${encodeURIComponent(a.id)}/replay`, 'Replay', `Replay ${a.event} of ${a.attempted_at}`)}</td></tr>\n`,
  );
  return appPage(
    'Webhooks',
    html`${problem(opts.problem)}${created}${replayed}<p>Every message event is posted, signed, to each enabled endpoint that asks for it.</p>
${endpoints.length ? wideTable(html`<table><thead><tr><th>URL</th><th>Events</th><th>Status</th>${ACTIONS_TH}</tr></thead><tbody>\n${endpointRows}</tbody></table>`) : html`<p>No endpoint yet.</p>`}
<h2>Add an endpoint</h2>
<form method="post" action="${base}">
${tokenField(form)}
<label for="url">URL (https)</label><input id="url" name="url" type="url" required maxlength="2048">
<label for="events">Events (comma-separated; empty: every message event)</label><input id="events" name="events" maxlength="500" placeholder="message.*">
<button type="submit">Add endpoint</button>
</form>
<h2>Deliveries</h2>
${attempts.length ? wideTable(html`<table><thead><tr><th>When</th><th>Event</th><th>Endpoint</th><th>Result</th>${ACTIONS_TH}</tr></thead><tbody>\n${attemptRows}</tbody></table>`) : html`<p>None yet.</p>`}`,
    { script: true, nav: wsNav(nav, 'webhooks') },
  );
}

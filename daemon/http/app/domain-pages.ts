// The web app's domains page: each domain of the workspace with the five records of
// spec.md to publish, their statuses (Verified, Waiting, Problem, Recommended) and notes, a copy
// button per value, and "Check now". Owners and admins.
import type { DomainView } from '../../../src/domains/domains.js';
import { html } from '../../../src/html.js';
import { appPage, copyField, postButton, problem, tokenField, wsNav, type Nav } from './pages.js';

const PURPOSE: Record<string, string> = { ownership: 'Ownership', mx: 'Replies (MX)', spf: 'SPF', dkim: 'DKIM', dmarc: 'DMARC' };

export function domainsPage(
  nav: Nav,
  form: string,
  domains: DomainView[],
  opts: { problem?: string; checked?: { domain: string; passed: boolean } } = {},
): string {
  const base = `/app/w/${encodeURIComponent(nav.ws)}/domains`;
  const checked =
    opts.checked &&
    html`<p role="status"><strong>${opts.checked.domain}: ${opts.checked.passed ? 'every required record is right.' : 'not verified yet.'}</strong> ${!opts.checked.passed && 'The records marked Waiting or Problem need work; DNS changes can take a while to be seen.'}</p>\n`;
  const section = (d: DomainView) => html`<section aria-labelledby="d-${d.id}">
<h2 id="d-${d.id}">${d.domain}: ${d.status === 'verified' ? 'verified' : 'not verified yet'}</h2>
<p class="meta">${d.checked_at ? `Last checked ${d.checked_at.slice(0, 16).replace('T', ' ')} UTC.` : 'Not checked yet.'} ${postButton(form, `${base}/${encodeURIComponent(d.domain)}/check`, 'Check now', `Check now: ${d.domain}`)}</p>
${d.records.map(
  // One block a record, its fields full width: a table of long values is unreadable at 360 px.
  (
    r,
  ) => html`<div class="record"><h3>${PURPOSE[r.purpose] ?? r.purpose}: ${r.type} record · <strong>${r.status ?? 'Not checked'}</strong></h3>
${r.note && html`<p class="meta">${r.note}</p>\n`}<div>Name ${copyField(r.fqdn, `Name of the ${r.purpose} record of ${d.domain}`)}</div>
<div>Value ${copyField(r.value, `Value of the ${r.purpose} record of ${d.domain}`)}</div></div>\n`,
)}</section>\n`;
  return appPage(
    'Domains',
    html`${problem(opts.problem)}${checked}<p>Mail is sent only from a verified domain. Publish these records at your DNS host, then check.</p>
${domains.length ? domains.map(section) : html`<p>No domain yet.</p>`}
<h2>Add a domain</h2>
<form method="post" action="${base}">
${tokenField(form)}
<label for="domain">Domain (e.g. acme.com)</label><input id="domain" name="domain" required maxlength="253">
<button type="submit">Add</button>
</form>`,
    { script: true, nav: wsNav(nav, 'domains') },
  );
}

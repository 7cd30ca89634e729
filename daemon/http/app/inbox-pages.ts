// The team inbox's pages: the threads of a view (Inbox, Archived) or a search, the Sent
// folder, and one thread with its messages in order and the reply form. Mail is untrusted: every
// value is escaped (html.ts), a message's HTML is shown only inside a sandboxed frame (srcdoc: no script, no
// forms, an origin of its own; remote images only once the reader asks), and its text as text.
import type { InboxThread } from '../../../src/model/inbox.js';
import { html, type Html } from '../../../src/html.js';
import { appPage, pager, problem, tokenField, wsNav, type Nav } from './pages.js';
import { sentTo, type SentCampaign } from '../../../src/inbox/inbox.js';

/** What the thread page shows of a message. */
export interface ThreadMessage {
  id: string;
  folder: 'inbox' | 'sent';
  kind: string;
  from: string;
  from_name?: string | null;
  to: string[];
  subject: string;
  created_at: string;
  text: string | null;
  html: string | null;
  note: string | null;
  auth: { verdict: string; summary: string } | null;
}

/** A message's HTML larger than this is not framed (the text is shown): a page stays a page. */
export const HTML_SHOWN_MAX = 512 * 1024;

/** What each kind is called on the page, so that a bounce reads as a bounce without colour. */
const KIND_LABEL: Record<string, string> = {
  mail: 'Mail',
  reply: 'Reply',
  auto_reply: 'Automatic reply',
  bounce: 'Bounce report: the message was not delivered',
  complaint: 'Complaint: the recipient reported it as spam',
  sent: 'Sent by us',
};

const when = (iso: string) => html`<time datetime="${iso}">${iso.slice(0, 16).replace('T', ' ')} UTC</time>`;
const inboxBase = (ws: string) => `/app/w/${encodeURIComponent(ws)}/inbox`;
const threadHref = (ws: string, thread: string) => `${inboxBase(ws)}/t/${encodeURIComponent(thread)}`;

/** The views' links and the search box, on every inbox page. */
function folders(ws: string, current: 'inbox' | 'archived' | 'sent' | null, search: string): Html {
  const base = inboxBase(ws);
  const link = (href: string, label: string, here: boolean) =>
    here ? html`<strong aria-current="page">${label}</strong>` : html`<a href="${href}">${label}</a>`;
  return html`<p>${link(base, 'Inbox', current === 'inbox')} · ${link(`${base}?view=archived`, 'Archived', current === 'archived')} · ${link(`${base}/sent`, 'Sent', current === 'sent')}</p>
<form method="get" action="${base}" role="search"><label for="q">Search by address or subject</label><input id="q" name="q" type="search" maxlength="200" value="${search}"><button type="submit">Search</button></form>`;
}

/** Links in a message open in a new tab, outside the frame. */
const FRAME_BASE = '<base target="_blank">';

const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? '' : 's'}`;

export function threadsPage(
  nav: Nav,
  opts: { view: 'inbox' | 'archived'; search: string; threads: InboxThread[]; total: number; page: number; per: number; live: string },
): string {
  const ws = nav.ws;
  const title = opts.search ? `Search: ${opts.search}` : opts.view === 'archived' ? 'Archived' : 'Inbox';
  const query = (page: number) => {
    const q = new URLSearchParams();
    if (opts.view === 'archived') q.set('view', 'archived');
    if (opts.search) q.set('q', opts.search);
    if (page > 1) q.set('page', String(page));
    const s = q.toString();
    return `${inboxBase(ws)}${s ? `?${s}` : ''}`;
  };
  const rows = opts.threads.map((t) => {
    const kind =
      (t.last_kind === 'bounce' || t.last_kind === 'complaint' || t.last_kind === 'auto_reply') &&
      html` <span class="tag">${KIND_LABEL[t.last_kind]!.split(':')[0]!}</span>`;
    return html`<li class="${t.unread ? 'unread' : 'read'}"><a href="${threadHref(ws, t.thread_id)}">${t.unread && html`<span class="tag">New</span> `}<span class="who">${t.last_from}</span> <span class="subject">${t.subject || '(no subject)'}</span></a>${kind}
<span class="meta">${plural(t.count, 'message')} · ${when(t.last_at)}</span></li>\n`;
  });
  const empty = opts.search
    ? 'No thread matches.'
    : opts.view === 'archived'
      ? 'Nothing archived.'
      : 'No mail waiting: replies to your mail arrive here.';
  return appPage(
    title,
    html`${folders(ws, opts.search ? null : opts.view, opts.search)}
<section id="live" data-live="${opts.live}" aria-live="polite">
<p>${plural(opts.total, 'thread')}.</p>
${rows.length ? html`<ul class="threads">\n${rows}</ul>` : html`<p>${empty}</p>`}
${pager(query, opts.page, opts.total, opts.per)}
</section>`,
    { script: true, nav: wsNav(nav, 'inbox') },
  );
}

export function sentPage(
  nav: Nav,
  opts: {
    items: Array<{ thread_id: string; to: string[]; campaign?: SentCampaign; subject: string; created_at: string }>;
    total: number;
    page: number;
    per: number;
  },
): string {
  const ws = nav.ws;
  const rows = opts.items.map(
    (i) =>
      html`<li><a href="${threadHref(ws, i.thread_id)}"><span class="who">To ${sentTo(i)}</span> <span class="subject">${i.subject || '(no subject)'}</span></a> <span class="meta">${when(i.created_at)}</span></li>\n`,
  );
  return appPage(
    'Sent',
    html`${folders(ws, 'sent', '')}
<p>${plural(opts.total, 'message')} sent, newest first.</p>
${rows.length ? html`<ul class="threads">\n${rows}</ul>` : html`<p>Nothing sent yet.</p>`}
${pager((p) => `${inboxBase(ws)}/sent${p > 1 ? `?page=${p}` : ''}`, opts.page, opts.total, opts.per)}`,
    { nav: wsNav(nav, 'inbox') },
  );
}

/** One message of a thread: who, when, what it is, what vouched for it, and its body. */
function messageBlock(m: ThreadMessage, images: boolean, imagesHref: string): Html {
  const kind = KIND_LABEL[m.kind] ?? m.kind;
  const who = html`<p class="meta"><strong>${kind}</strong> · ${when(m.created_at)}<br>From ${m.from_name ? `${m.from_name} <${m.from}>` : m.from}<br>To ${m.to.join(', ')}</p>`;
  const auth =
    m.auth &&
    html`<p class="meta">${m.auth.verdict === 'pass' ? 'Sender verified' : m.auth.verdict === 'fail' ? 'Warning: the sender could not be verified' : 'Sender not verified'}: ${m.auth.summary}</p>`;
  const note = m.note && html`<p class="meta">Note: ${m.note}</p>`;
  // A frame with a null origin: no script, no forms, no navigation of this page; the page's CSP
  // (inherited by srcdoc) blocks remote images until the reader asks. Links open in a new tab. The
  // message's HTML is the frame's document, given as an attribute's value: escaped like any value.
  const body =
    m.html !== null && m.html.length <= HTML_SHOWN_MAX
      ? html`<iframe class="mail" title="The message as its sender formatted it" sandbox="allow-popups allow-popups-to-escape-sandbox" referrerpolicy="no-referrer" srcdoc="${FRAME_BASE + m.html}"></iframe>
${images ? html`<p class="meta">Remote images are shown.</p>` : html`<p class="meta">Remote images are blocked: they tell the sender you read it. <a href="${imagesHref}">Show images in this message</a></p>`}`
      : html`<pre class="text">${m.text ?? (m.html === null ? '(no text)' : '(the HTML is too large to show here; its text part is empty)')}</pre>`;
  return html`<article id="m-${m.id}" aria-label="${kind} from ${m.from}">
<h2>${m.subject || '(no subject)'}</h2>
${who}${auth}${note}${body}
</article>\n`;
}

export function threadPage(
  nav: Nav,
  opts: {
    form: string;
    thread: { thread_id: string; unread: boolean; archived: boolean };
    messages: ThreadMessage[];
    replyTo: ThreadMessage | null;
    images: string | null;
    live: string;
    problem?: string;
    sent?: boolean;
    draft?: string;
    /** Older messages of the thread left out. */
    earlier?: number;
  },
): string {
  const ws = nav.ws;
  const href = threadHref(ws, opts.thread.thread_id);
  const mark = (field: string, value: boolean, label: string) =>
    html`<form method="post" action="${href}/mark" class="inline">${tokenField(opts.form)}<input type="hidden" name="${field}" value="${String(value)}"><button type="submit">${label}</button></form>`;
  const subject = opts.messages[0]?.subject || '(no subject)';
  const to = opts.replyTo;
  const reply =
    to &&
    html`<h2 id="reply">Reply</h2>
<form method="post" action="${href}/reply">
${tokenField(opts.form)}<input type="hidden" name="item" value="${to.id}">
<p class="meta">To ${to.folder === 'sent' ? to.to.join(', ') : to.from}, from ${to.folder === 'sent' ? to.from : (to.to[0] ?? '')}</p>
<label for="text">Your reply</label><textarea id="text" name="text" rows="8" required maxlength="100000">${opts.draft ?? ''}</textarea>
<button type="submit">Send reply</button>
</form>`;
  return appPage(
    subject,
    html`${folders(ws, null, '')}${problem(opts.problem)}${opts.sent && html`<p role="status"><strong>Reply sent.</strong> It is in this thread and in Sent.</p>\n`}<p>${opts.thread.archived ? mark('archived', false, 'Move to inbox') : mark('archived', true, 'Archive')} ${opts.thread.unread ? mark('read', true, 'Mark read') : mark('read', false, 'Mark unread')}</p>
<section id="live" data-live="${opts.live}" aria-live="polite">
${opts.earlier ? html`<p>${opts.earlier} earlier message${opts.earlier === 1 ? ' is' : 's are'} not shown here.</p>\n` : null}${opts.messages.map((m) => messageBlock(m, opts.images === m.id, `${href}?images=${encodeURIComponent(m.id)}#m-${encodeURIComponent(m.id)}`))}</section>
${reply}`,
    { script: true, nav: wsNav(nav, 'inbox') },
  );
}

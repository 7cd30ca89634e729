// Step: the headers and unsubscribe link of list mail (CONTRACT.md "Tracking and unsubscribe",
// "What mail software expects of svc"). The subscriber's one URL goes in `List-Unsubscribe` with a
// `mailto:` at the copy's own return path (the MX takes it there and unsubscribes: src/inbox/), and
// `List-Unsubscribe-Post: List-Unsubscribe=One-Click` (RFC 8058), both signed and over-signed
// (dkim.ts). `List-Id` (RFC 2919) and `Precedence: bulk` tell vacation programs and filters that
// this is list mail, which they do not answer (RFC 3834 §2). A body that does not link the URL
// itself ({{unsubscribe_url}}) gets a footer that does.
import { UNSUBSCRIBE_SUBJECT, listId, unsubscribeUrl } from '../../model/list.js';
import { returnPath } from '../../mail/return-path.js';
import { escapeHtml } from '../../html.js';
import type { Step } from './draft.js';

export const unsubscribeStep: Step = {
  name: 'unsubscribe',
  perRecipient: (c) => c.source === 'broadcast' || c.source === 'sequence',
  apply(draft, { content, copy, baseUrl }) {
    if (!copy.list) return;
    const url = unsubscribeUrl(baseUrl, copy.list.subscriber.unsubscribe_token);
    const mailto = `mailto:${returnPath(copy.list.record_id, content.from)}?subject=${UNSUBSCRIBE_SUBJECT}`;
    draft.headers.push(
      ['List-Id', listId(copy.list.subscriber.list_id, content.from)],
      ['Precedence', 'bulk'],
      ['List-Unsubscribe', `<${url}>, <${mailto}>`],
      ['List-Unsubscribe-Post', 'List-Unsubscribe=One-Click'],
    );
    if (draft.html !== null && !draft.html.includes(url)) {
      const footer = `<p style="font-size:12px;color:#666666;margin-top:24px">If you no longer want these emails, <a href="${escapeHtml(url)}">unsubscribe</a>.</p>`;
      const at = draft.html.toLowerCase().lastIndexOf('</body>');
      draft.html = at < 0 ? draft.html + footer : draft.html.slice(0, at) + footer + draft.html.slice(at);
    }
    if (draft.text !== null && !draft.text.includes(url)) {
      const body = draft.text.replace(/\s*$/, '');
      draft.text = `${body ? `${body}\n\n` : ''}-- \nUnsubscribe: ${url}\n`;
    }
  },
};

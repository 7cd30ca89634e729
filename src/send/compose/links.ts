// Step: tracked links, in broadcast and sequence mail (API-sent and relay mail keep their links,
// spec.md rule 7): every absolute http(s) href of the HTML points at the service's redirect with
// the recipient's token (src/tracking/links.ts). Per recipient: the token is the copy's own.
import type { SendContent } from '../../model/message.js';
import { trackable, trackedLink } from '../../mail/tracked-link.js';
import { escapeHtml } from '../../html.js';
import type { Step } from './draft.js';

const tracked = (c: SendContent) => c.html !== null && (c.source === 'broadcast' || c.source === 'sequence');

// The few entities an href of ours meets (&amp; in query strings above all).
const ENTITIES: Record<string, string> = { amp: '&', quot: '"', apos: "'", lt: '<', gt: '>' };
const decode = (s: string) =>
  s.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (m, e: string) =>
    e[0] === '#'
      ? String.fromCodePoint(e[1] === 'x' || e[1] === 'X' ? parseInt(e.slice(2), 16) : Number(e.slice(1)))
      : (ENTITIES[e.toLowerCase()] ?? m),
  );

export const linksStep: Step = {
  name: 'links',
  perRecipient: tracked,
  apply(draft, { content, copy, baseUrl, linkKey }) {
    if (draft.html === null || !tracked(content) || copy.token === null || !linkKey) return;
    const token = copy.token;
    draft.html = draft.html.replace(
      /(<a\b[^>]*?\shref\s*=\s*)(?:"([^"]*)"|'([^']*)')/gi,
      (all, head: string, dq: string | undefined, sq: string | undefined) => {
        const url = decode((dq ?? sq ?? '').trim());
        // The service's own links (the unsubscribe URL) stay as they are: they are not the sender's.
        return trackable(url) && !url.startsWith(`${baseUrl}/`) ? `${head}"${escapeHtml(trackedLink(baseUrl, linkKey, token, url))}"` : all;
      },
    );
  },
};

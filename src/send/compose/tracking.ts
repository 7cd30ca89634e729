// Step: the open pixel, the recipient's own, on every HTML copy of API, broadcast and sequence mail.
// Relay mail is never tracked (spec.md "SMTP relay" rule 6), nor svc's own mail: a double opt-in
// confirmation goes to someone who has not consented yet, and an invitation or a trial warning is
// not the workspace's to measure. Links are left as they are (rule 7 of the API).
import type { SendContent } from '../../model/message.js';
import { escapeHtml } from '../../html.js';
import type { Step } from './draft.js';

export const pixelUrl = (baseUrl: string, token: string) => `${baseUrl}/t/o/${token}.gif`;

/** Puts the 1x1 open-tracking image just before </body> (or at the end). */
export function addPixel(html: string, url: string): string {
  const img = `<img src="${escapeHtml(url)}" width="1" height="1" alt="" style="display:block;border:0;width:1px;height:1px">`;
  const at = html.toLowerCase().lastIndexOf('</body>');
  return at < 0 ? html + img : html.slice(0, at) + img + html.slice(at);
}

const TRACKED = new Set<SendContent['source']>(['api', 'broadcast', 'sequence']);
const tracked = (c: SendContent) => c.html !== null && TRACKED.has(c.source);

export const trackingStep: Step = {
  name: 'tracking',
  perRecipient: tracked,
  apply(draft, { content, copy, baseUrl }) {
    if (draft.html === null || !tracked(content) || copy.token === null) return;
    draft.html = addPixel(draft.html, pixelUrl(baseUrl, copy.token));
  },
};

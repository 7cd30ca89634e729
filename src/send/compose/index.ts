// Composition's entry: the steps in their fixed order, and how a job's recipients are split into
// copies. Signing (dkim.ts) follows in compose-pool.ts, last, over the headers the steps named.
import type { Message, SendContent } from '../../model/message.js';
import { checkHtmlDepth } from '../poison.js';
import { documentStep } from './document.js';
import type { ComposeContext, CopyFor, Draft, Step } from './draft.js';
import { feedbackStep } from './feedback.js';
import { renderMime } from './mime.js';
import { textStep, type TextCache } from './text.js';
import { trackingStep } from './tracking.js';
import { linksStep } from './links.js';
import { mergeStep } from './merge.js';
import { readRelayed } from './relayed.js';
import { unsubscribeStep } from './unsubscribe.js';

export type { CopyFor } from './draft.js';
export { TextCache } from './text.js';

/**
 * In this order: the text from the HTML as sent (once per content, before the document, the pixel
 * and tracked links, so it shows the real links); merge variables, in the HTML and in that text
 * (everything after works on the recipient's own text); the document (with the preheader); the
 * unsubscribe footer and headers; the pixel; tracked links; headers last.
 */
export const STEPS: readonly Step[] = [textStep, mergeStep, documentStep, unsubscribeStep, trackingStep, linksStep, feedbackStep];

export interface Composed {
  raw: Buffer;
  envelope: { from: string; to: string[] };
  /** Header fields the steps added: the signature covers them. */
  headers: string[];
}

export async function compose(sent: SendContent, copy: CopyFor, baseUrl: string, linkKey?: string, texts?: TextCache): Promise<Composed> {
  // Relayed mail is kept as it came; its body is read here, in the compose thread.
  const content = await readRelayed(sent);
  checkHtmlDepth(content.html);
  const ctx: ComposeContext = { content, copy, baseUrl, ...(linkKey ? { linkKey } : {}), ...(texts ? { texts } : {}) };
  const draft: Draft = { html: content.html, text: content.text, headers: [] };
  for (const step of STEPS) step.apply(draft, ctx);
  // A list copy shows its one subscriber (a name is one line of text: control characters go).
  const raw = await renderMime(
    content,
    draft,
    copy.list
      ? {
          messageId: copy.list.message_id,
          to: [{ name: copy.list.subscriber.name.replace(/[\x00-\x1f\x7f]+/g, ' ').trim() || null, address: copy.recipients[0]! }],
        }
      : undefined,
  );
  return { raw, envelope: { from: content.from, to: copy.recipients }, headers: draft.headers.map(([name]) => name) };
}

/**
 * The copies a job's recipients get: one each, with its record's own token, when any step is per
 * recipient for this content; else one shared by all, as one SMTP transaction.
 */
export function copiesOf(content: SendContent, messages: Message[]): CopyFor[] {
  const perRecipient = STEPS.some((s) => s.perRecipient(content));
  if (perRecipient) {
    return messages.map((m) => ({
      recipients: [m.to],
      token: m.token,
      ...(m.subscriber ? { list: { subscriber: m.subscriber, record_id: m.id, message_id: m.message_id } } : {}),
    }));
  }
  return [{ recipients: messages.map((m) => m.to), token: null }];
}

// Composition's entry: the steps in their fixed order, and how a job's recipients are split into
// copies. Signing (dkim.ts) follows in compose-pool.ts, last, over the headers the steps named.
import type { Message, OutboundJob, SendContent } from '../../model/message.js';
import { checkHtmlDepth } from '../poison.js';
import { documentStep } from './document.js';
import type { ComposeContext, CopyFor, Draft, Step } from './draft.js';
import { feedbackStep } from './feedback.js';
import { renderMime } from './mime.js';
import { textStep } from './text.js';
import { trackingStep } from './tracking.js';
import { linksStep } from './links.js';

export type { CopyFor } from './draft.js';

/**
 * In this order: the document first (the pixel goes inside it); the text from the HTML as sent
 * (before links are rewritten, so it shows the real ones); tracked links; headers last.
 */
export const STEPS: readonly Step[] = [documentStep, trackingStep, textStep, linksStep, feedbackStep];

export interface Composed {
  raw: Buffer;
  envelope: { from: string; to: string[] };
  /** Header fields the steps added: the signature covers them. */
  headers: string[];
}

export async function compose(content: SendContent, copy: CopyFor, baseUrl: string, linkKey?: string): Promise<Composed> {
  checkHtmlDepth(content.html);
  const ctx: ComposeContext = { content, copy, baseUrl, ...(linkKey ? { linkKey } : {}) };
  const draft: Draft = { html: content.html, text: content.text, headers: [] };
  for (const step of STEPS) step.apply(draft, ctx);
  const raw = await renderMime(content, draft);
  return { raw, envelope: { from: content.from, to: copy.recipients }, headers: draft.headers.map(([name]) => name) };
}

/**
 * The copies a job's recipients get: one each when any step is per recipient for this content
 * (and the records carry their own tokens), else one shared by all, as one SMTP transaction. Jobs
 * queued before tokens were per recipient share one copy with the job's token.
 */
export function copiesOf(content: SendContent, job: OutboundJob, messages: Message[]): CopyFor[] {
  const perRecipient = STEPS.some((s) => s.perRecipient(content));
  if (perRecipient && messages.every((m) => m.token)) return messages.map((m) => ({ recipients: [m.to], token: m.token! }));
  return [{ recipients: messages.map((m) => m.to), token: perRecipient ? job.open_token : null }];
}

import type { CommandSpec } from '../spec.js';
import { SvcError } from '../../src/errors.js';
import type { InboundAuth } from '../../src/model/inbox.js';

/** Whether anyone vouches for the sender, in words (src/inbox/authenticate.ts). */
const authLine = (a: InboundAuth | null | undefined): string =>
  !a
    ? 'not checked (received before svc checked senders)'
    : `${a.verdict === 'pass' ? 'authenticated' : a.verdict === 'fail' ? 'NOT AUTHENTICATED (DMARC fails)' : 'NOT AUTHENTICATED'}: ${a.summary} (spf=${a.spf} dkim=${a.dkim} dmarc=${a.dmarc}${a.arc !== 'none' ? ` arc=${a.arc}` : ''})`;

export default {
  noun: 'inbox',
  verb: 'show',
  summary: 'one inbox item with its text (and its HTML as received, printed as text, never rendered)',
  args: ['<id>'],
  ids: { args: { 0: 'inbox item' } },
  options: [
    { flags: '--html', description: 'print the HTML part too (as text)' },
    {
      flags: '--raw',
      description: "print only the message as stored, byte for byte (the MX's trace fields first); with --json: as base64 in `raw`",
    },
  ],
  async run(ctx, [id], opts) {
    const service = await ctx.parts('inbox');
    const item = await service.inbox.get(await ctx.workspace(), id!, { raw: opts.raw === true });
    if (opts.raw === true && !ctx.out.json) {
      if (item.raw === null || item.raw === undefined)
        throw new SvcError('invalid_argument', "a Sent copy has no stored message (it is the send's content): show it without --raw");
      return ctx.out.bytes(Buffer.from(item.raw, 'base64'));
    }
    ctx.out.result(item, () => {
      ctx.out.record({
        id: item.id,
        kind: item.kind,
        folder: item.folder,
        from: item.from,
        to: item.to,
        cc: item.cc,
        subject: item.subject,
        message_id: item.message_id,
        thread_id: item.thread_id,
        about: item.message_ref,
        ...(item.folder === 'inbox' ? { sender: authLine(item.auth) } : {}),
        note: item.note,
        created_at: item.created_at,
      });
      ctx.out.line();
      ctx.out.line(item.text ?? (item.html ? '(no text part)' : '(empty)'));
      if (item.html && opts.html) {
        ctx.out.line();
        ctx.out.line('--- HTML as received (not rendered) ---');
        ctx.out.line(item.html);
      } else if (item.html) ctx.out.note(`an HTML part of ${item.html.length} characters is not shown (--html prints it as text)`);
    });
  },
} satisfies CommandSpec;

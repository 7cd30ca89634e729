import type { CommandSpec } from '../spec.js';

/** A terminal shows text, never markup or control sequences a sender put in a message. */
const printable = (s: string) => s.replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);

export default {
  noun: 'inbox',
  verb: 'show',
  summary: 'one inbox item with its text (and its HTML as received, printed as text, never rendered)',
  args: ['<id>'],
  options: [
    { flags: '--html', description: 'print the HTML part too (as text)' },
    { flags: '--raw', description: 'with --json: the message as received, base64' },
  ],
  async run(ctx, [id], opts) {
    const service = await ctx.service();
    const item = await service.inbox.get(await ctx.workspace(), id!, { raw: opts.raw === true });
    ctx.out.result(item, () => {
      ctx.out.record({ id: item.id, kind: item.kind, folder: item.folder, from: item.from, to: item.to, cc: item.cc, subject: printable(item.subject), message_id: item.message_id, thread_id: item.thread_id, about: item.message_ref, note: item.note, created_at: item.created_at });
      ctx.out.line();
      ctx.out.line(printable(item.text ?? (item.html ? '(no text part)' : '(empty)')));
      if (item.html && opts.html) {
        ctx.out.line();
        ctx.out.line('--- HTML as received (not rendered) ---');
        ctx.out.line(printable(item.html));
      } else if (item.html) ctx.out.note(`an HTML part of ${item.html.length} characters is not shown (--html prints it as text)`);
    });
  },
} satisfies CommandSpec;

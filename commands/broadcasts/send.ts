// commands/broadcasts/: `svc broadcasts ...`, one file per verb: broadcasts to a list and their campaigns.
import { SvcError } from '../../src/errors.js';
import { bodyFile } from '../body-file.js';
import type { CommandSpec } from '../spec.js';

export default {
  noun: 'broadcasts',
  verb: 'send',
  summary: "a broadcast to the list's active subscribers: {campaign_id, status, message} once it is queued",
  args: ['<list_id>'],
  ids: { args: { 0: 'list' } },
  options: [
    { flags: '--subject <subject>', description: 'the subject, sent as written (required)' },
    {
      flags: '--html <file>',
      description: 'the HTML body, with merge variables such as {{first_name|there}} and {{unsubscribe_url}} (required)',
    },
    { flags: '--text <file>', description: 'the text body (default: made from the HTML)' },
    { flags: '--preheader <text>', description: 'hidden preview text shown beside the subject' },
    { flags: '--from-address <address>', description: "sender (default: the list's)" },
    { flags: '--from-name <name>', description: "sender name (default: the list's)" },
  ],
  async run(ctx, [listId], opts) {
    if (typeof opts.subject !== 'string') throw new SvcError('usage', 'missing --subject');
    if (typeof opts.html !== 'string') throw new SvcError('usage', 'missing --html FILE');
    const body = {
      subject: opts.subject,
      body_html: await bodyFile(ctx.io.cwd, opts.html, '--html'),
      ...(typeof opts.text === 'string' ? { body_text: await bodyFile(ctx.io.cwd, opts.text, '--text') } : {}),
      ...(typeof opts.preheader === 'string' ? { preheader: opts.preheader } : {}),
      ...(typeof opts.fromAddress === 'string' ? { from_address: opts.fromAddress } : {}),
      ...(typeof opts.fromName === 'string' ? { from_name: opts.fromName } : {}),
    };
    const service = await ctx.parts('broadcasts');
    const r = await service.broadcasts.broadcast(await ctx.workspace(), listId!, body);
    ctx.out.result(r, () => {
      ctx.out.line(`${r.message} (campaign ${r.campaign_id})`);
      ctx.out.note(`follow it with: svc broadcasts watch ${r.campaign_id}`);
    });
  },
} satisfies CommandSpec;

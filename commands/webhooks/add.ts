// commands/webhooks/: `svc webhooks ...`, one file per verb (tail-view.tsx is the live view).
import type { CommandSpec } from '../spec.js';

export default {
  noun: 'webhooks',
  verb: 'add',
  summary: 'new webhook endpoint (https); its signing secret is printed once',
  args: ['<url>'],
  options: [{ flags: '--events <list>', description: 'comma-separated events (default message.*: every message event)' }],
  async run(ctx, [url], opts) {
    const service = await ctx.parts('webhooks');
    const e = await service.webhooks.add(await ctx.workspace(), url!, opts.events as string | undefined);
    ctx.out.result(e, () => {
      ctx.out.record(e, ['id', 'url', 'events', 'status', 'secret']);
      ctx.out.note('the secret is shown only now: keep it to verify X-Svc-Signature');
    });
  },
} satisfies CommandSpec;

// commands/steps/: `svc steps ...`, one file per verb: the steps of a sequence.
import { SvcError } from '../../src/errors.js';
import { bodyFile } from '../body-file.js';
import type { CommandSpec } from '../spec.js';

const whole = (v: unknown, flag: string): number => {
  if (typeof v !== 'string' || !/^\d+$/.test(v)) throw new SvcError('usage', `${flag} must be a whole number`);
  return Number(v);
};

export default {
  noun: 'steps',
  verb: 'add',
  summary: 'add a step to a sequence: sent delay-hours after the previous one (after enrolment for the first)',
  args: ['<sequence_id>'],
  ids: { args: { 0: 'sequence' } },
  options: [
    { flags: '--position <n>', description: 'its place, from 0 (required)' },
    { flags: '--delay-hours <h>', description: 'hours after the previous step (required)' },
    { flags: '--subject <subject>', description: 'the subject (required)' },
    {
      flags: '--html <file>',
      description: 'the HTML body; {{name}}, {{first_name|fallback}}, {{email}} and {{unsubscribe_url}} are filled',
    },
    { flags: '--text <file>', description: 'the text body (a step with neither body goes with an empty text)' },
  ],
  async run(ctx, [sequenceId], opts) {
    if (opts.position === undefined) throw new SvcError('usage', 'missing --position');
    if (opts.delayHours === undefined) throw new SvcError('usage', 'missing --delay-hours');
    if (typeof opts.subject !== 'string') throw new SvcError('usage', 'missing --subject');
    const file = async (f: unknown, flag: string) => (typeof f === 'string' ? bodyFile(ctx.io.cwd, f, flag) : undefined);
    const body = {
      position: whole(opts.position, '--position'),
      delay_hours: whole(opts.delayHours, '--delay-hours'),
      subject: opts.subject,
      body_html: await file(opts.html, '--html'),
      body_text: await file(opts.text, '--text'),
    };
    const service = await ctx.parts('sequences');
    const s = await service.sequences.addStep(await ctx.workspace(), sequenceId!, body);
    ctx.out.result(s, () => ctx.out.line(`added step ${s.position} (${s.id}): ${s.delay_hours} h after the previous`));
  },
} satisfies CommandSpec;

import { SvcError } from '../../src/errors.js';
import { zoneLines } from '../../src/domains/zone.js';
import type { CommandSpec } from '../spec.js';
import { pasteable } from './render.js';

const FORMATS = ['table', 'zone', 'json'] as const;

export default {
  noun: 'domains',
  verb: 'records',
  summary: 'the records to publish for a domain: a table, BIND zone-file lines (long TXT values split into 255-byte strings), or JSON',
  args: ['<domain>'],
  options: [{ flags: '--format <format>', description: 'table (default), zone or json' }],
  async run(ctx, [domain], opts) {
    const format = (opts.format as string | undefined) ?? (ctx.out.json ? 'json' : 'table');
    if (!(FORMATS as readonly string[]).includes(format))
      throw new SvcError('usage', `invalid --format '${format}': use ${FORMATS.join(', ')}`);
    const service = await ctx.docService('domains');
    const v = await service.domains.show(await ctx.workspace(), domain!);
    const records = v.records.map((r) => ({ purpose: r.purpose, type: r.type, name: r.name, fqdn: r.fqdn, value: r.value }));
    if (format === 'json' || ctx.out.json) {
      ctx.out.document({ domain: v.domain, records });
      return;
    }
    if (format === 'zone') {
      ctx.out.line(`; ${v.domain}: the records svc checks (svc domains verify ${v.domain})`);
      for (const l of zoneLines(records)) ctx.out.line(l);
      return;
    }
    ctx.out.table(
      records.map((r) => ({ ...r, value: pasteable(r) })),
      ['purpose', 'type', 'fqdn', 'value'],
    );
  },
} satisfies CommandSpec;

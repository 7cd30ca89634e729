// svc doctor: checks the installation and explains each problem with its fix (src/doctor/doctor.ts).
// Exit 0 when all is well, 3 when something needs attention, 1 when it could not check at all.
import { describeStore } from '../src/config.js';
import { isSvcError } from '../src/errors.js';
import { dnsClient } from '../src/domains/dns.js';
import { doctorExit, runDoctor, type Check } from '../src/doctor/doctor.js';
import { systemClock } from '../src/clock.js';
import type { CommandSpec } from './spec.js';

const MARK: Record<Check['status'], string> = { pass: 'ok  ', warn: 'WARN', fail: 'FAIL', skip: 'skip' };

export default {
  verb: 'doctor',
  summary:
    'check the installation (store, public names, DNS, TLS, domains, clock, outbound) and explain each problem with its fix; exit 0 all good, 3 something needs attention',
  options: [
    {
      flags: '--probe-domain <domain>',
      description: 'with direct delivery: connect to one MX of this domain on port 25, to see whether outbound SMTP is open here',
    },
  ],
  async run(ctx, _args, opts) {
    const config = ctx.config();
    let store = null;
    let storeProblem: { detail: string; fix: string } | undefined;
    try {
      store = (await ctx.parts()).store;
    } catch (e) {
      // A schema that is behind is a finding; anything else (no store, no database) is exit 1.
      if (!(isSvcError(e) && e.kind === 'schema_behind')) throw e;
      storeProblem = {
        detail: e.message,
        fix: e.message.includes('newer') ? 'upgrade svc to the version that wrote this schema' : 'svc migrate (or svc serve --migrate)',
      };
    }
    const checks = await runDoctor(
      {
        config,
        clock: systemClock,
        store,
        dns: dnsClient({ servers: config.dnsServers, timeoutMs: config.dnsTimeoutMs }),
        storeDetail: `${describeStore(config.store)} opens${config.store.kind === 'postgres' ? ', schema current' : ''}`,
        ...(storeProblem ? { storeProblem } : {}),
      },
      { ...(typeof opts.probeDomain === 'string' ? { probeDomain: opts.probeDomain } : {}) },
    );
    ctx.out.result({ checks }, () => {
      for (const c of checks) {
        const mark =
          c.status === 'pass'
            ? ctx.out.color.green(MARK.pass)
            : c.status === 'skip'
              ? ctx.out.color.dim(MARK.skip)
              : ctx.out.color.red(MARK[c.status]);
        ctx.out.line(`${mark} ${c.name}: ${c.detail}`);
        if (c.fix) ctx.out.line(`     fix: ${c.fix}`);
      }
      const n = checks.filter((c) => c.status === 'warn' || c.status === 'fail').length;
      ctx.out.note(n ? `${n} thing(s) need attention` : 'all good');
    });
    return doctorExit(checks);
  },
} satisfies CommandSpec;

// `svc status` as lines of text: what the plain output prints and the live view draws.
import type { StatusView } from '../../src/status/status.js';
import type { Rates } from '../../src/model/daemon-status.js';

export function duration(s: number): string {
  if (s < 120) return `${s}s`;
  if (s < 7200) return `${Math.floor(s / 60)}m`;
  if (s < 172_800) return `${Math.floor(s / 3600)}h ${Math.floor((s % 3600) / 60)}m`;
  return `${Math.floor(s / 86_400)}d ${Math.floor((s % 86_400) / 3600)}h`;
}

const rates = (r: Rates) => `${r.accepted} accepted, ${r.sent} sent, ${r.deferred} deferred, ${r.bounced} bounced`;

export function statusLines(v: StatusView): string[] {
  if (!v.running) return ['no svc serve has reported on this store in the last minute'];
  const out = [`svc ${v.version} · up ${duration(v.uptime_seconds ?? 0)} · ${v.daemons.length} daemon${v.daemons.length === 1 ? '' : 's'}`];
  for (const l of v.listeners)
    out.push(
      `  ${l.name.padEnd(8)} ${l.url}${l.connections !== null ? `  (${l.connections} connected)` : ''}${v.daemons.length > 1 ? `  [${l.daemon}]` : ''}`,
    );
  const q = v.queue;
  out.push(
    `queue    ${q.total} message(s): ${q.queued} queued, ${q.deferred} deferred, ${q.sending} sending, ${q.held} held${q.total ? `; oldest ${duration(q.oldest_seconds)}` : ''}`,
  );
  out.push(`minute   ${rates(v.rates.minute)}`);
  out.push(`hour     ${rates(v.rates.hour)}`);
  out.push(`webhooks ${v.webhooks.backlog} waiting`);
  out.push(
    `domains  ${v.domains.verified} verified, ${v.domains.pending} pending${v.domains.failing.length ? `; failing checks: ${v.domains.failing.join(', ')}` : ''}`,
  );
  if (v.faults.length) for (const f of v.faults) out.push(`FAULT    ${f.kind}: ${f.detail} (since ${f.since}, ${f.count}×)`);
  else out.push('faults   none');
  out.push(`ticks    ${v.ticks.map((t) => `${t.name} (${t.cron})`).join(', ')}`);
  return out;
}

// How a domain's records look to people: a table to copy from, statuses coloured, notes below.
import type { DomainView } from '../../src/domains/domains.js';
import type { Output } from '../output.js';
import { txtStrings } from '../../src/domains/zone.js';

/**
 * A record's value as people paste it: a TXT value over 255 bytes (the DKIM key) already cut into
 * quoted strings of at most 255 bytes, as DNS panels and zone files take it; others as they are.
 */
export const pasteable = (r: { type: string; value: string }): string =>
  r.type === 'TXT' && Buffer.byteLength(r.value) > 255 ? txtStrings(r.value) : r.value;

export function printDomain(out: Output, v: DomainView, opts: { history?: boolean } = {}): void {
  const c = out.color;
  const paint = (s: string | null) =>
    s === 'Verified'
      ? c.green(s)
      : s === 'Recommended'
        ? c.cyan(s)
        : s === 'Problem'
          ? c.red(s)
          : s === 'Waiting'
            ? c.yellow(s)
            : c.dim('not checked');
  out.line(
    `${c.bold(v.domain)}  ${v.status === 'verified' ? c.green('verified') : c.yellow('pending')}${v.legacy ? c.dim('  (legacy)') : ''}${v.checked_at ? c.dim(`  checked ${v.checked_at}`) : ''}`,
  );
  out.line();
  out.table(
    v.records.map((r) => ({ status: paint(r.status), purpose: r.purpose, type: r.type, name: r.name, value: pasteable(r) })),
    ['status', 'purpose', 'type', 'name', 'value'],
  );
  const notes = v.records.filter((r) => r.note);
  if (notes.length) {
    out.line();
    for (const r of notes) out.line(`${r.purpose}: ${r.note}`);
  }
  if (opts.history && v.history.length) {
    out.line();
    out.line(c.bold('Changes'));
    for (const h of v.history.slice(-20))
      out.line(`${h.at}  ${h.purpose}  ${h.from ?? '-'} -> ${h.to}${h.note ? c.dim('  ' + h.note) : ''}`);
  }
}

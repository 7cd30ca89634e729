import type { Output } from '../output.js';
import type { StoreReport } from '../../src/store/file/check.js';

export function printStoreReport(out: Output, r: StoreReport): void {
  for (const p of r.problems)
    out.line(`${p.kind}: ${p.file}${p.line ? ` line ${p.line}` : ''}${p.offset !== null ? ` (byte ${p.offset})` : ''}: ${p.reason}`);
  out.line(r.ok ? `${r.store}: ok` : `${r.store}: ${r.problems.filter((p) => p.kind !== 'torn_tail').length} problem(s)`);
}

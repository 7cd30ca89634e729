import type { Output } from '../output.js';
import type { StoreReport } from '../../src/store/sqlite/check.js';

export function printStoreReport(out: Output, r: StoreReport): void {
  for (const p of r.problems) out.line(`${p.kind}: ${p.file}: ${p.reason}`);
  out.line(r.ok ? `${r.store}: ok` : `${r.store}: ${r.problems.length} problem(s)`);
}

// Benchmarks: GET /api/v2/me on Postgres beside the file store (target: Postgres within 2x),
// and the wall time of `svc keys create` on each backend.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { SVC, median, svcSync, report } from './lib.js';
import { meThroughput } from './foundation.js';

const databaseUrl = process.env.DATABASE_URL || 'postgres://localhost:5432/test';

function keysCreateMs(store: string, runs = 11): number {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = process.hrtime.bigint();
    const r = spawnSync(process.execPath, [SVC, '--store', store, 'keys', 'create', '--workspace', 'bench', '--json']);
    if (r.status !== 0) throw new Error(`keys create: ${r.stderr}`);
    times.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  return median(times);
}

export async function postgres(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-'));
  const schema = `svc_bench_${randomBytes(4).toString('hex')}`;
  const u = new URL(databaseUrl);
  u.searchParams.set('schema', schema);
  const pgStore = u.toString();
  try {
    svcSync(['--store', pgStore, 'migrate']);
    const file = await meThroughput(`file:${dir}`, 'file store');
    const pg = await meThroughput(pgStore, 'postgres');
    report('  /me postgres vs file store', { ratio: pg / file, target: '>= 0.5' });
    report('svc keys create (file store)', { median_ms: keysCreateMs(`file:${dir}`) });
    report('svc keys create (postgres)', { median_ms: keysCreateMs(pgStore) });
  } finally {
    rmSync(dir, { recursive: true, force: true });
    spawnSync('psql', [databaseUrl.replace(/\?.*$/, ''), '-qc', `DROP SCHEMA IF EXISTS ${schema} CASCADE`]);
  }
}

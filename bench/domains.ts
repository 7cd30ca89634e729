// Benchmarks: `svc domains verify` against the loopback fixture DNS (wall time per domain,
// the five queries in parallel), and 100 domains re-checked the way the daemon does it.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FixtureDns } from '../test/helpers/dns-server.js';
import { publish } from '../test/helpers/domains.js';
import { createService } from '../src/service.js';
import { SqliteStore } from '../src/store/sqlite/sqlite-store.js';
import { loadConfig } from '../src/config.js';
import { systemClock, systemRandom } from '../src/clock.js';
import { silentLog } from '../src/log.js';
import { SVC, median, report } from './lib.js';

const zone = (d: string) => `$ORIGIN ${d}
_svc TXT "svc-verify={{token}}"
@ MX 10 {{mx_host}}
@ TXT "v=spf1 include:_spf.{{service_domain}} -all"
svc1._domainkey TXT "{{dkim}}"
_dmarc TXT "v=DMARC1; p=quarantine"`;

export async function domains(): Promise<void> {
  const dns = await new FixtureDns().start();
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-'));
  const store = await SqliteStore.open(dir, 'admin');
  const config = { ...loadConfig({ dnsServer: dns.server }, {}), store: { kind: 'file' as const, dir } };
  const service = await createService({ store, config, clock: systemClock, random: systemRandom, log: silentLog });
  try {
    const ws = await service.workspaces.create('bench', 'scale');
    const names = Array.from({ length: 100 }, (_, i) => `d${i}.bench`);
    const t0 = Date.now();
    for (const n of names) {
      dns.zone(zone(n));
      publish(dns, n, (await service.domains.add(ws, n)).records);
    }
    report('domains add (2048-bit key each)', { per_domain_ms: (Date.now() - t0) / names.length });

    const inProcess: number[] = [];
    for (const n of names.slice(0, 20)) {
      const s = performance.now();
      if (!(await service.domains.verify(ws, n)).passed) throw new Error(`${n} did not verify`);
      inProcess.push(performance.now() - s);
    }
    report('one check, five queries in parallel', { median_ms: median(inProcess) });

    const s = performance.now();
    const r = await service.domains.recheckAll();
    report('daemon re-check of 100 domains', { total_ms: performance.now() - s, checked: r.checked, passing: r.passed });
    await store.close();

    const cli: number[] = [];
    for (let i = 0; i < 7; i++) {
      const c0 = performance.now();
      // Asynchronously: the fixture DNS server answers from this process's event loop.
      await promisify(execFile)(process.execPath, [
        SVC,
        '--store',
        `file:${dir}`,
        '--dns-server',
        dns.server,
        'domains',
        'verify',
        'd1.bench',
        '--json',
      ]);
      cli.push(performance.now() - c0);
    }
    report('svc domains verify (whole command)', { median_ms: median(cli) });
  } finally {
    await store.close();
    await dns.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

// A service on a fresh file store, for tests that build a transport themselves.
import { systemRandom, type Clock, systemClock } from '../../src/clock.js';
import { loadConfig, type Config } from '../../src/config.js';
import { lineLog } from '../../src/log.js';
import { createService, type Service } from '../../src/service.js';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { tmpDir } from './tmp.js';

export async function testService(
  t: { after(fn: () => unknown): void },
  opts: { clock?: Clock; config?: Partial<Config> } = {},
): Promise<{ service: Service; logs: string[] }> {
  const dir = await tmpDir(t);
  const store = await SqliteStore.open(dir, 'serve');
  t.after(() => store.close());
  const logs: string[] = [];
  const config = { ...loadConfig({}, {}), store: { kind: 'file' as const, dir }, ...opts.config };
  const service = await createService({
    store,
    config,
    clock: opts.clock ?? systemClock,
    random: systemRandom,
    log: lineLog((l) => logs.push(l)),
  });
  return { service, logs };
}

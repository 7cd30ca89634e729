// `npm run docs`: writes what comes from the code: the settings table of docs/configuration.md
// (src/settings.ts), the whole man page (man-page.ts: the commands, the settings, the error
// registry), and docs/openapi.json, the REST API's OpenAPI document as the daemon serves it
// (daemon/http/openapi.ts).
// Tests (test/docs.test.ts, test/daemon/openapi.test.ts) fail when these differ from their source,
// so an edit there is followed by this.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { markdownTable } from '../src/settings.js';
import { makeManifest } from '../commands/manifest.js';
import { buildInfo } from '../src/build-info.js';
import { manPage } from './man-page.js';
import { loadConfig, type StoreLocation } from '../src/config.js';
import { openStore } from '../src/store/open.js';
import { createService } from '../src/service.js';
import { systemClock, systemRandom } from '../src/clock.js';
import { silentLog } from '../src/log.js';
import { buildApi } from '../daemon/http/api.js';

/** The OpenAPI document of the REST API, made from the routes (an empty file store behind them). */
export async function openApiDocument(): Promise<unknown> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-openapi-'));
  try {
    const store = await openStore({ kind: 'file', dir } as StoreLocation, { role: 'admin', log: silentLog });
    try {
      const service = await createService({
        store,
        config: { ...loadConfig({}, {}), store: { kind: 'file', dir } as StoreLocation },
        clock: systemClock,
        random: systemRandom,
        log: silentLog,
      });
      const app = await buildApi(service);
      await app.ready();
      const doc = app.swagger();
      await app.close();
      return doc;
    } finally {
      await store.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The document as committed: two-space JSON and a final newline. */
export const openApiText = (doc: unknown) => `${JSON.stringify(doc, null, 2)}\n`;

export const SETTINGS_BLOCK = ['<!-- settings: generated from src/settings.ts by npm run docs -->', '<!-- settings end -->'] as const;
export const MAN_BLOCK = ['.\\" environment: generated from src/settings.ts by npm run docs', '.\\" environment end'] as const;

export function replaceBlock(text: string, [begin, end]: readonly [string, string], body: string): string {
  const i = text.indexOf(begin);
  const j = text.indexOf(end, i);
  if (i < 0 || j < 0) throw new Error(`markers ${begin} ... ${end} not found`);
  return `${text.slice(0, i + begin.length)}\n${body}\n${text.slice(j)}`;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const root = new URL('..', import.meta.url);
  const configuration = new URL('docs/configuration.md', root);
  writeFileSync(configuration, replaceBlock(readFileSync(configuration, 'utf8'), SETTINGS_BLOCK, markdownTable()));
  writeFileSync(new URL('man/svc.1', root), manPage(await makeManifest(), buildInfo().version));
  mkdirSync(new URL('docs/', root), { recursive: true });
  writeFileSync(new URL('docs/openapi.json', root), openApiText(await openApiDocument()));
}

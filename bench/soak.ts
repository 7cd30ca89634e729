// `npm run bench -- soak`: the soak tests the suite runs small, at the size they were first written
// for, each once: whether they pass, and how long they took. Not part of the default run (minutes).
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { report } from './lib.js';

const SOAKS: Array<{ name: string; file: string; env: Record<string, string> }> = [
  { name: 'MX flood, 150,000 messages', file: 'test/bin/mx-flood.test.ts', env: { SVC_FLOOD_MESSAGES: '150000' } },
  { name: 'CLI CSV import, 100,000 rows', file: 'test/bin/lists.test.ts', env: { SVC_IMPORT_ROWS: '100000' } },
  { name: 'fan-out killed, 20,000 subscribers', file: 'test/bin/broadcasts.test.ts', env: { SVC_FANOUT_SUBSCRIBERS: '20000' } },
  { name: 'SIGKILL 30 times under REST, relay and MX load', file: 'test/bin/kill-soak.test.ts', env: { SVC_KILL_ROUNDS: '30' } },
];

const root = fileURLToPath(new URL('..', import.meta.url));

export async function soak(): Promise<void> {
  for (const s of SOAKS) {
    const started = performance.now();
    const code = await new Promise<number | null>((resolve) => {
      const child = spawn(process.execPath, ['--import', 'tsx', '--test', '--test-reporter=dot', s.file], {
        cwd: root,
        env: { ...process.env, ...s.env },
        stdio: ['ignore', 'ignore', 'inherit'],
      });
      child.on('exit', resolve);
    });
    report(s.name, { result: code === 0 ? 'pass' : `FAIL (exit ${code})`, seconds: (performance.now() - started) / 1000 });
  }
}

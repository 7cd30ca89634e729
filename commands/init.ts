// svc init: creates the store (a file store's directory, or a Postgres schema migrated to this
// build) and a commented config file (config-file.ts) beside the working directory's, or at
// --config. On a terminal it asks what flags did not say (the service domain, the MX host, the API
// port, the public base URL, the outbound route, the HELO name); --yes, or no terminal, takes the
// defaults.
// It never overwrites a config file.
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { dirname, resolve } from 'node:path';
import { SvcError } from '../src/errors.js';
import { configFileText, DEFAULT_CONFIG_FILE } from '../src/config-file.js';
import { describeStore, loadConfig } from '../src/config.js';
import { openStore } from '../src/store/open.js';
import { helpOf, resolveSettings, SETTINGS } from '../src/settings.js';
import type { CommandSpec } from './spec.js';

/**
 * What init asks, in order; each default follows the answers before it. Only what was given or
 * answered otherwise than the default is written into the file; the rest stays commented out with
 * its default, so a derived one (the MX host from the service domain, the base URL from the host
 * and API port) follows a later change of what it comes from.
 */
const ASKED = ['serviceDomain', 'mxHost', 'apiPort', 'baseUrl', 'outbound', 'heloName'] as const;
const QUESTION: Record<(typeof ASKED)[number], string> = {
  serviceDomain: 'Service domain (the {service_domain} of the SPF include your users publish)',
  mxHost: 'MX host (where your users point MX for replies)',
  apiPort: 'API port (the REST API, tracking and unsubscribe links, the web app)',
  baseUrl: 'Public base URL (tracking and unsubscribe links, the web app; the default follows the API port)',
  outbound: 'Outbound route (direct, or smtp://user:pass@host:587 for a smarthost)',
  heloName: 'HELO name (should resolve to the sending IP and back)',
};

export default {
  verb: 'init',
  createsStore: true,
  summary: 'create the store and a commented config file (asks on a terminal; --yes takes the defaults)',
  options: [
    // The daemon's own settings that init asks for (the others are every command's flags already).
    ...SETTINGS.filter((s) => s.scope === 'serve' && (ASKED as readonly string[]).includes(s.name)).map((s) => ({
      flags: s.flag!,
      description: `${helpOf(s)}; written into the config file`,
    })),
    { flags: '--yes', description: 'ask nothing: what flags did not give takes its default' },
  ],
  async run(ctx, _args, opts) {
    const env = ctx.io.env;
    const cwd = ctx.io.cwd;
    const named = ctx.flags.config !== undefined ? String(ctx.flags.config) : env.SVC_CONFIG || undefined;
    const path = resolve(cwd, named ?? DEFAULT_CONFIG_FILE);
    // Checked before the store is touched, so a wrong path leaves nothing half made.
    if (!existsSync(dirname(path))) throw new SvcError('not_found', `cannot write ${path}: no such folder ${dirname(path)} (ENOENT)`);
    if (existsSync(path))
      throw new SvcError(
        'conflict',
        `${path} exists already; svc init never overwrites a config file (edit it, or give another with --config)`,
      );

    // Given: flags (global ones and init's own), then the environment; the rest asked or defaulted.
    const flags: Record<string, unknown> = { ...ctx.flags };
    for (const name of ASKED) if (opts[name] !== undefined) flags[name] = opts[name];
    delete flags.config;
    const stdin = ctx.io.stdin;
    const ask = opts.yes !== true && stdin?.isTTY === true && ctx.io.stderr.isTTY === true;
    const chosen: Record<string, string> = {};
    const given = (name: string) => flags[name] !== undefined || (SETTINGS.find((s) => s.name === name)?.env ?? '') in env;
    const rl = ask ? createInterface({ input: stdin, output: ctx.io.stderr as NodeJS.WritableStream, terminal: false }) : null;
    // Lines are read through the iterator, which keeps those typed (or pasted) ahead of a question.
    const lines = rl?.[Symbol.asyncIterator]();
    try {
      for (const name of ASKED) {
        // The default in the light of what was chosen so far (the MX host follows the service domain).
        const now = resolveSettings({ ...flags, ...chosen }, env).find((r) => r.setting.name === name)!;
        if (given(name) || !lines) {
          if (given(name) && now.raw !== undefined) chosen[name] = now.raw;
          continue;
        }
        for (;;) {
          ctx.io.stderr.write(`${QUESTION[name]} [${now.raw ?? ''}]: `);
          const line = await lines.next();
          if (line.done) throw new SvcError('usage', 'svc init stopped at the end of input; nothing was written');
          const answer = line.value.trim();
          if (answer === '' || answer === now.raw) break;
          chosen[name] = answer;
          try {
            // Checked as the daemon will read it; a wrong answer is asked again.
            resolveSettings({ ...flags, ...chosen }, env);
            break;
          } catch (e) {
            ctx.io.stderr.write(`  ${(e as Error).message}\n`);
          }
        }
      }
    } finally {
      rl?.close();
    }
    const resolved = resolveSettings({ ...flags, ...chosen }, env);
    const location = loadConfig(flags, env, cwd, { resolved, file: null }).store;
    // A file store by its absolute path: relative paths in the file are read from the file's directory.
    const store = location.kind === 'file' ? `file:${location.dir}` : resolved.find((r) => r.setting.name === 'store')!.raw!;

    // The store: made (a file store's directory and data file) or migrated (a Postgres schema).
    const s = await openStore(location, { role: 'admin', log: ctx.log, migrate: true });
    const existed = (await s.workspaces.list()).length > 0;
    await s.close();

    const text = configFileText({ store, ...chosen }, [
      `svc configuration, written by svc init on ${new Date().toISOString().slice(0, 10)}.`,
      'svc serve and every svc command read it (from this directory, or with --config / SVC_CONFIG).',
    ]);
    await writeFile(path, text, { mode: 0o600, flag: 'wx' });
    ctx.out.result({ store: describeStore(location), config: path }, () => {
      ctx.out.line(`${existed ? 'using the store' : 'created the store'} ${describeStore(location)}`);
      ctx.out.line(`wrote ${path}`);
      ctx.out.line('next: svc workspaces create NAME, then svc serve');
    });
  },
} satisfies CommandSpec;

// commands/config/: `svc config ...`, one file per verb.
import type { CommandSpec } from '../spec.js';
import { flagName, SETTINGS, shown } from '../../src/settings.js';

// Takes every setting's flag, the daemon's too, so that `svc config show --api-port 9000` shows
// what `svc serve --api-port 9000` would run with.
const serveOnly = SETTINGS.filter((s) => s.scope === 'serve' && s.flag).map((s) => ({
  flags: s.flag!,
  description: `(as svc serve) ${s.description.replace(/`/g, '')}`,
}));

export default {
  noun: 'config',
  verb: 'show',
  summary: 'print the effective settings and where each came from (flag, env, file, default); secrets masked',
  options: serveOnly,
  async run(ctx) {
    // Reads and checks every value as the daemon would (a bad one is exit 2); opens nothing.
    ctx.config();
    const { resolved, file } = ctx.settings();
    const rows = resolved.map((r) => ({
      setting: r.setting.name,
      flag: flagName(r.setting) ?? null,
      env: r.setting.env ?? null,
      value: shown(r),
      source: r.raw === undefined ? null : r.source,
    }));
    ctx.out.result({ config_file: file?.path ?? null, settings: rows }, () => {
      ctx.out.line(
        file
          ? `config file: ${file.path}`
          : 'config file: none (give one with --config or SVC_CONFIG, or put svc.toml here; svc init writes one)',
      );
      ctx.out.table(
        rows.map((r) => ({ ...r, flag: r.flag ?? '', env: r.env ?? '', value: r.value ?? '-', source: r.source ?? '-' })),
        ['flag', 'env', 'value', 'source'],
      );
    });
  },
} satisfies CommandSpec;

// What the binary knows before it loads any command: every command's usage (noun, verb, summary,
// arguments, options) and the global options, as data. `npm run build` writes it beside the
// compiled commands (scripts/manifest.mjs); `svc --version`, `--help`, help and completion read
// only this, and a command's own file is imported when that command runs (main.ts). Without the
// file (the sources run through tsx) it is made from the commands themselves, which is slower
// and the same.
import { readFileSync } from 'node:fs';
import type { CommandSpec, OptionSpec } from './spec.js';

export interface CommandEntry extends Omit<CommandSpec, 'run'> {
  /** Its file under commands/, without .js (registry.ts COMMAND_FILES). */
  file: string;
  /** Shown at the end of its help (examples.ts). */
  examples: string[];
}

export interface Manifest {
  nouns: Record<string, { summary: string; singular: string }>;
  /** The settings' flags every command takes (src/settings.ts, scope global). */
  global: OptionSpec[];
  commands: CommandEntry[];
}

const MANIFEST = new URL('./manifest.json', import.meta.url);

/** Made from the commands and settings themselves (the build, and the sources run directly). */
export async function makeManifest(): Promise<Manifest> {
  const { COMMAND_FILES, loadCommand, nouns } = await import('./registry.js');
  const { EXAMPLES } = await import('./examples.js');
  const { SETTINGS, helpOf } = await import('../src/settings.js');
  const commands = await Promise.all(
    COMMAND_FILES.map(async (file) => {
      const { run: _run, ...usage } = await loadCommand(file);
      return { ...usage, file, examples: EXAMPLES[[usage.noun, usage.verb].filter(Boolean).join(' ')] ?? [] };
    }),
  );
  const global = SETTINGS.filter((s) => s.scope === 'global' && s.flag).map((s) => ({ flags: s.flag!, description: helpOf(s) }));
  return { nouns, global, commands };
}

/** The build's manifest, else one made now. */
export async function manifest(): Promise<Manifest> {
  try {
    return JSON.parse(readFileSync(MANIFEST, 'utf8')) as Manifest;
  } catch {
    return makeManifest();
  }
}

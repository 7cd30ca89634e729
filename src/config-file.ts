// The config file (`--config FILE`, `SVC_CONFIG`, else `svc.toml` in the working directory when
// there is one): instance settings in TOML, one key per setting, named as its flag without the
// dashes (`service-domain = "mail.example.com"`). It applies to the daemon and to every command,
// below flags and the environment (settings.ts). `svc init` writes one with every setting, the
// ones not chosen commented out with their defaults. Paths in it are relative to its directory.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import { createRequire } from 'node:module';
import { SvcError } from './errors.js';
import { defaultShown, flagName, SETTINGS, type Setting } from './settings.js';

/** Looked for in the working directory when neither --config nor SVC_CONFIG names a file. */
export const DEFAULT_CONFIG_FILE = 'svc.toml';

/**
 * The TOML parser, loaded when there is a config file to read (most commands run without one: its
 * nine modules were a fifth of what `svc keys list` loaded). Its CommonJS build, which a synchronous
 * read of the settings can require.
 */
const toml = (): typeof import('smol-toml') => createRequire(import.meta.url)('smol-toml') as typeof import('smol-toml');

export interface ConfigFile {
  path: string;
  /** Given values as text, by setting name (what a flag would have said). */
  values: Record<string, string>;
}

const usage = (msg: string) => new SvcError('usage', msg);

/** Settings a file may hold: those with a flag, but the file's own. */
const inFile = (s: Setting) => s.flag !== undefined && s.name !== 'config';
const keyOf = (s: Setting) => flagName(s)!.slice(2);
const byKey = new Map(SETTINGS.filter(inFile).map((s) => [keyOf(s), s]));
/** Settings whose value is a path (or a file: store), read relative to the file's directory. */
const PATHS = new Set(['tlsCert', 'tlsKey', 'outboundCa', 'encryptionKeyFile', 'logFile']);

/**
 * The system's file, read when no other is: where a packaged install keeps its settings, so that
 * `sudo -u svc svc status` in any directory reads what the service reads.
 */
export const SYSTEM_CONFIG_FILE = '/etc/svc/svc.toml';

/**
 * The file to read: the one named (--config, SVC_CONFIG), else svc.toml here, else the system's
 * (`system`, normally SYSTEM_CONFIG_FILE) when there is one; null for none.
 */
export function configPath(named: string | undefined, cwd: string, system?: string): string | null {
  if (named !== undefined) return resolve(cwd, named);
  for (const path of [resolve(cwd, DEFAULT_CONFIG_FILE), ...(system ? [system] : [])]) if (existsSync(path)) return path;
  return null;
}

/** Edit distance (insertions, deletions, substitutions, swaps of neighbours) of two short strings. */
function distance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0]![j] = j;
  for (let i = 1; i <= a.length; i++)
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i]![j] = Math.min(d[i]![j]!, d[i - 2]![j - 2]! + 1);
    }
  return d[a.length]![b.length]!;
}

/** The key meant by a misspelt one: the same but for `_` and case, else one within a third of its length. */
function nearest(key: string, keys: string[]): string | undefined {
  const k = key.replace(/_/g, '-').toLowerCase();
  const scored = keys.map((x) => ({ x, d: distance(k, x) })).sort((a, b) => a.d - b.d);
  const best = scored[0];
  return best && best.d <= Math.max(1, Math.floor(k.length / 3)) ? best.x : undefined;
}

/** A TOML value as the flag would give it: lists comma-separated, switches true/false. */
function asText(key: string, v: unknown, file: string): string {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (Array.isArray(v) && v.every((x) => typeof x === 'string' || typeof x === 'number')) return v.join(',');
  throw usage(`${file}: ${key} must be a string, a number, true or false, or a list of strings`);
}

/** Reads and checks a config file: a missing file, bad TOML or an unknown key is wrong usage (exit 2). */
export function readConfigFile(path: string): ConfigFile {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw usage(`cannot read the config file ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  const { parse, TomlError } = toml();
  let doc: Record<string, unknown>;
  try {
    doc = parse(text);
  } catch (e) {
    const where = e instanceof TomlError ? ` at line ${e.line}` : '';
    throw usage(`${path} is not valid TOML${where}: ${(e as Error).message.split('\n')[0]}`);
  }
  const dir = dirname(path);
  const values: Record<string, string> = {};
  for (const [key, v] of Object.entries(doc)) {
    const s = byKey.get(key);
    if (!s) {
      const near = nearest(key, [...byKey.keys()]);
      throw usage(
        `${path}: unknown setting '${key}'${near ? ` (did you mean ${near}?)` : ''}; the keys are the flags without their dashes (svc config show lists them)`,
      );
    }
    let raw = asText(key, v, path);
    if (PATHS.has(s.name) && raw && !isAbsolute(raw)) raw = resolve(dir, raw);
    if (s.name === 'store' && raw.startsWith('file:') && !raw.startsWith('file://') && !isAbsolute(raw.slice(5)))
      raw = `file:${resolve(dir, raw.slice(5))}`;
    values[s.name] = raw;
  }
  return { path, values };
}

const tomlString = (s: string) => JSON.stringify(s);

/**
 * The text of a new config file: a header, then every setting a file may hold with what it means;
 * those in `chosen` set, the others commented out with their default (`svc init`).
 */
export function configFileText(chosen: Record<string, string>, header: string[]): string {
  const lines = [
    ...header.map((h) => `# ${h}`),
    '#',
    '# Each key is a flag of svc without its dashes. Precedence: a flag, then the SVC_* environment,',
    '# then this file, then the default. Relative paths are relative to this file.',
    '',
  ];
  for (const s of SETTINGS.filter(inFile)) {
    if (s.secret === 'value') continue;
    lines.push(`# ${s.description.replace(/`/g, '')}${s.scope === 'serve' ? ' (svc serve)' : ''}`);
    const v = chosen[s.name];
    if (v !== undefined) lines.push(`${keyOf(s)} = ${tomlString(v)}`);
    else lines.push(`# ${keyOf(s)} = ${typeof s.default === 'string' ? tomlString(s.default) : `(${defaultShown(s).replace(/`/g, '')})`}`);
    lines.push('');
  }
  return lines.join('\n');
}

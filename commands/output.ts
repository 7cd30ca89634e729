// Output for people and for scripts (CONTRACT.md): with --json exactly one JSON document on stdout;
// otherwise tables, coloured only when stdout is a TTY and NO_COLOR is unset.
import { Chalk, type ChalkInstance } from 'chalk';

export interface Writer {
  write(s: string | Uint8Array): unknown;
  isTTY?: boolean;
}

export interface Io {
  stdout: Writer;
  stderr: Writer;
  env: NodeJS.ProcessEnv;
  cwd: string;
}

export class Output {
  readonly color: ChalkInstance;
  constructor(
    readonly io: Io,
    readonly json: boolean,
  ) {
    const useColor = Boolean(io.stdout.isTTY) && !('NO_COLOR' in io.env && io.env.NO_COLOR !== '');
    this.color = new Chalk({ level: useColor ? 1 : 0 });
  }

  /** The command's result: `doc` with --json, else whatever `human` prints. */
  result(doc: unknown, human: () => void): void {
    if (this.json) this.io.stdout.write(JSON.stringify(doc, null, 2) + '\n');
    else human();
  }

  /** Bytes as they are, nothing added (`svc inbox show --raw`). */
  bytes(b: Uint8Array): void {
    this.io.stdout.write(b);
  }

  line(text = ''): void {
    this.io.stdout.write(text + '\n');
  }

  /** A note for people; goes to stderr so it never mixes with a document on stdout. */
  note(text: string): void {
    this.io.stderr.write(text + '\n');
  }

  table<T extends object>(rows: readonly T[], columns: string[]): void {
    if (rows.length === 0) {
      this.note('(none)');
      return;
    }
    const cell = (v: unknown) => (v === null || v === undefined ? '-' : Array.isArray(v) ? v.join(',') : String(v));
    const get = (r: T, c: string) => (r as Record<string, unknown>)[c];
    // Colour codes take no room on screen.
    const width = (s: string) => s.replace(/\x1b\[[0-9;]*m/g, '').length;
    const widths = columns.map((c) => Math.max(c.length, ...rows.map((r) => width(cell(get(r, c))))));
    const fmt = (vals: string[]) => vals.map((v, i) => v + ' '.repeat(Math.max(0, widths[i]! - width(v)))).join('  ').trimEnd();
    this.line(this.color.bold(fmt(columns.map((c) => c.toUpperCase()))));
    for (const r of rows) this.line(fmt(columns.map((c) => cell(get(r, c)))));
  }

  /** key: value lines for one record. */
  record(rec: Record<string, unknown>, keys: string[] = Object.keys(rec)): void {
    const w = Math.max(...keys.map((k) => k.length));
    for (const k of keys) {
      const v = rec[k];
      this.line(`${this.color.dim(k.padEnd(w))}  ${v === null || v === undefined ? '-' : Array.isArray(v) ? v.join(',') : String(v)}`);
    }
  }
}

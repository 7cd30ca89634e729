// Output for people and for scripts (CONTRACT.md): with --json exactly one JSON document on stdout;
// otherwise tables, coloured only when stdout is a TTY and NO_COLOR is unset. Everything printed
// goes through terminal.ts: values from outside (mail headers, remote replies) never reach a
// terminal as control sequences.
import { Chalk, type ChalkInstance } from 'chalk';
import { inertJson, printable } from './terminal.js';

export interface Writer {
  write(s: string | Uint8Array): unknown;
  isTTY?: boolean;
}

export interface Io {
  stdout: Writer;
  stderr: Writer;
  /** Where questions are answered (`svc init` on a terminal); absent: nothing is asked. */
  stdin?: NodeJS.ReadableStream & { isTTY?: boolean };
  env: NodeJS.ProcessEnv;
  cwd: string;
}

export class Output {
  readonly color: ChalkInstance;
  readonly #colour: boolean;
  constructor(
    readonly io: Io,
    readonly json: boolean,
  ) {
    const useColor = Boolean(io.stdout.isTTY) && !('NO_COLOR' in io.env && io.env.NO_COLOR !== '');
    this.#colour = useColor;
    this.color = new Chalk({ level: useColor ? 1 : 0 });
  }

  /** The command's result: `doc` with --json (C0 and C1 controls escaped), else whatever `human` prints. */
  result(doc: unknown, human: () => void): void {
    if (this.json) this.io.stdout.write(inertJson(doc) + '\n');
    else human();
  }

  /** A document asked for by an option (`--format json`) rather than --json: printed as --json prints it. */
  document(doc: unknown): void {
    this.io.stdout.write(inertJson(doc) + '\n');
  }

  /** One document of a stream on one line (NDJSON), controls escaped as in result(). */
  jsonLine(doc: unknown): void {
    this.io.stdout.write(inertJson(doc, 0) + '\n');
  }

  /** Bytes as they are, nothing added (`svc inbox show --raw`). */
  bytes(b: Uint8Array): void {
    this.io.stdout.write(b);
  }

  /** Lines of text (line breaks and tabs kept, other controls made visible, our colours kept). */
  line(text = ''): void {
    this.io.stdout.write(printable(text, { keepColour: this.#colour }) + '\n');
  }

  /** A note for people; goes to stderr so it never mixes with a document on stdout. */
  note(text: string): void {
    this.io.stderr.write(printable(text) + '\n');
  }

  /** One value on one line: a line break or tab in it is shown, not obeyed. */
  #cell(v: unknown): string {
    return printable(v === null || v === undefined ? '-' : Array.isArray(v) ? v.join(',') : String(v), {
      keepColour: this.#colour,
      inline: true,
    });
  }

  table<T extends object>(rows: readonly T[], columns: string[]): void {
    if (rows.length === 0) {
      this.note('(none)');
      return;
    }
    const cell = (v: unknown) => this.#cell(v);
    const get = (r: T, c: string) => (r as Record<string, unknown>)[c];
    // Colour codes take no room on screen.
    const width = (s: string) => s.replace(/\x1b\[[0-9;]*m/g, '').length;
    const widths = columns.map((c) => Math.max(c.length, ...rows.map((r) => width(cell(get(r, c))))));
    const fmt = (vals: string[]) =>
      vals
        .map((v, i) => v + ' '.repeat(Math.max(0, widths[i]! - width(v))))
        .join('  ')
        .trimEnd();
    this.#write(this.color.bold(fmt(columns.map((c) => c.toUpperCase()))));
    for (const r of rows) this.#write(fmt(columns.map((c) => cell(get(r, c)))));
  }

  /** key: value lines for one record. */
  record(rec: Record<string, unknown>, keys: string[] = Object.keys(rec)): void {
    const w = Math.max(...keys.map((k) => k.length));
    for (const k of keys) {
      this.#write(`${this.color.dim(k.padEnd(w))}  ${this.#cell(rec[k])}`);
    }
  }

  /** A line already made printable. */
  #write(text: string): void {
    this.io.stdout.write(text + '\n');
  }
}

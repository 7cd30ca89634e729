// Output for people and for scripts (CONTRACT.md): with --json exactly one JSON document on stdout;
// otherwise tables, coloured only when stdout is a TTY and NO_COLOR is unset. Everything printed
// goes through terminal.ts: values from outside (mail headers, remote replies) never reach a
// terminal as control sequences.
import { inertJson, printable } from './terminal.js';

/**
 * The few styles svc's own output uses, as SGR codes (what chalk writes at its 16-colour level).
 * chalk itself is loaded only for a live view (ink draws through it), not by every command: three
 * modules (15 KB) to load at each start for six styles.
 */
const SGR = { bold: [1, 22], dim: [2, 22], red: [31, 39], green: [32, 39], yellow: [33, 39], cyan: [36, 39] } as const;
export type Styles = { [K in keyof typeof SGR]: (s: string) => string };

function styles(on: boolean): Styles {
  const style = ([open, close]: readonly [number, number]) => (on ? (s: string) => `\x1b[${open}m${s}\x1b[${close}m` : (s: string) => s);
  return Object.fromEntries(Object.entries(SGR).map(([name, codes]) => [name, style(codes)])) as Styles;
}

export interface Writer {
  write(s: string | Uint8Array): unknown;
  isTTY?: boolean;
  /** A terminal's width (tables fit it); unknown off a terminal. */
  columns?: number;
}

const ISO = /^\d{4}-\d\d-\d\d[T ]\d\d:\d\d/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
/** Git's shortest: an id is never shown shorter than this, even when fewer characters are unique. */
const MIN_ID = 8;

/** The shortest prefix length (at least MIN_ID) that tells every id of the column apart. */
export function uniquePrefixLength(ids: string[]): number {
  const sorted = [...new Set(ids)].sort();
  let n = MIN_ID;
  for (let i = 1; i < sorted.length; i++) {
    const a = sorted[i - 1]!;
    const b = sorted[i]!;
    let common = 0;
    while (common < a.length && a[common] === b[common]) common++;
    n = Math.max(n, common + 1);
  }
  return n;
}

export interface Io {
  stdout: Writer;
  stderr: Writer;
  /** Where questions are answered (`svc init` on a terminal); absent: nothing is asked. */
  stdin?: NodeJS.ReadableStream & { isTTY?: boolean };
  env: NodeJS.ProcessEnv;
  cwd: string;
  /**
   * The system's config file, read when neither --config, SVC_CONFIG nor ./svc.toml names one
   * (`/etc/svc/svc.toml` for the binary); absent: none.
   */
  systemConfig?: string;
  /** How bin/svc started this process (`svc version` says it); absent when not started by it. */
  start?: Start;
}

/** How bin/svc started the commands: dist's modules, with Node's compile cache where Node has one (22+). */
export interface Start {
  entry: 'modules';
  /** The compile cache's folder, or null (Node 20, or the cache could not be used). */
  compile_cache: string | null;
}

export class Output {
  readonly color: Styles;
  readonly #colour: boolean;
  constructor(
    readonly io: Io,
    readonly json: boolean,
  ) {
    const useColor = Boolean(io.stdout.isTTY) && !('NO_COLOR' in io.env && io.env.NO_COLOR !== '');
    this.#colour = useColor;
    this.color = styles(useColor);
  }

  /** Whether svc's colours are on (a TTY, NO_COLOR unset). */
  get colour(): boolean {
    return this.#colour;
  }

  /**
   * Before a live view (ink) is drawn: ink colours through chalk's shared instance, which looks only
   * at FORCE_COLOR and the terminal; with NO_COLOR its colours are turned off here.
   */
  async inkColours(): Promise<void> {
    if (!this.#colour) (await import('chalk')).default.level = 0;
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

  /**
   * Rows under upper-case headings. On a terminal narrower than the table, ids (UUIDs) are cut to
   * the shortest prefix that still tells them apart (at least 8; every id-taking command accepts
   * one), then times to the minute, then the widest text columns are cut with an ellipsis until
   * the table fits. Into a pipe
   * every value is printed whole.
   */
  table<T extends object>(rows: readonly T[], columns: string[]): void {
    if (rows.length === 0) {
      this.note('(none)');
      return;
    }
    const get = (r: T, c: string) => (r as Record<string, unknown>)[c];
    // Colour codes take no room on screen.
    const width = (s: string) => s.replace(/\x1b\[[0-9;]*m/g, '').length;
    const cells = rows.map((r) => columns.map((c) => this.#cell(get(r, c))));
    const widthsOf = () => columns.map((c, i) => Math.max(c.length, ...cells.map((row) => width(row[i]!))));
    let widths = widthsOf();
    const room = this.io.stdout.isTTY ? this.io.stdout.columns : undefined;
    const total = () => widths.reduce((a, b) => a + b, 0) + 2 * (columns.length - 1);
    if (room && total() > room) {
      columns.forEach((_, i) => {
        const ids = cells.map((row) => row[i]!);
        if (!ids.every((v) => UUID.test(v))) return;
        const n = uniquePrefixLength(ids);
        for (const row of cells) row[i] = row[i]!.slice(0, n);
      });
      widths = widthsOf();
      // Then times to the minute (2026-11-27 16:57), if that is not enough either.
      if (total() > room)
        columns.forEach((_, i) => {
          if (cells.every((row) => ISO.test(row[i]!) || row[i] === '-'))
            for (const row of cells) row[i] = row[i] === '-' ? '-' : row[i]!.slice(0, 16).replace('T', ' ');
        });
      widths = widthsOf();
      // Then the widest text column, a character at a time, down to its heading or 8.
      while (total() > room) {
        let widest = -1;
        widths.forEach((w, i) => {
          const plain = cells.every((row) => !row[i]!.includes('\x1b') && !ISO.test(row[i]!));
          if (plain && w > Math.max(columns[i]!.length, 8) && (widest < 0 || w > widths[widest]!)) widest = i;
        });
        if (widest < 0) break;
        const to = widths[widest]! - 1;
        for (const row of cells) if (row[widest]!.length > to) row[widest] = row[widest]!.slice(0, to - 1) + '…';
        widths = widthsOf();
      }
    }
    const fmt = (vals: string[]) =>
      vals
        .map((v, i) => v + ' '.repeat(Math.max(0, widths[i]! - width(v))))
        .join('  ')
        .trimEnd();
    this.#write(this.color.bold(fmt(columns.map((c) => c.toUpperCase()))));
    for (const row of cells) this.#write(fmt(row));
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

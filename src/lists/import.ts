// CSV import of subscribers (spec.md "Subscribers", CSV import rules). The CSV is read with
// csv-parse, streamed: quoted fields, commas and newlines inside quotes, a BOM, CRLF. A first row
// naming an `email` column is a header (with `name`, or `first_name`, or `full_name`, and `tags`,
// split on semicolons); without one the first column is the email. Rows with an invalid email are
// skipped and reported (`errors`: at most ERRORS_SHOWN of them, with `errors_total`); new rows are
// active, even on double opt-in lists; rows already on the list update the name (and tags when the
// file has a tags column) and keep their status. Input that is not UTF-8 is refused with a clear
// error rather than imported with mangled names.
import { SvcError } from '../errors.js';
import { subscribeRow, subscriberEmail } from './fields.js';
import { upgradeUrlOf } from '../config.js';
import type { DepsOf } from '../deps.js';
import type { Workspace } from '../model/workspace.js';
import { createdOrLimit, limitFor } from '../workspaces/quota.js';

/** Rows written per store call. */
export const IMPORT_BATCH = 1000;
/** Errors listed in an import's result; the rest are only counted (errors_total). */
export const ERRORS_SHOWN = 100;
/** A record longer than this is a malformed file, not a subscriber. */
const MAX_RECORD = 64 * 1024;

export interface ImportRow {
  /** The line the record starts on (1-based, the header counted). */
  line: number;
  email: string;
  name: string;
  /** Absent when the file has no tags column. */
  tags?: string[];
}

export interface ImportError {
  line: number;
  email: string;
  error: string;
}

/** A CSV source that can be read again from the start (the contacts check reads it once before the import). */
export type CsvSource = () => AsyncIterable<Buffer | string>;

/** A string as a CSV source. */
export const csvText = (text: string): CsvSource =>
  async function* () {
    yield text;
  };

/**
 * UTF-8 decoding that refuses what is not UTF-8, chunk by chunk, with CRLF made LF (csv-parse counts
 * a CRLF inside quotes as two lines, and every line number after it would be one off).
 */
async function* utf8(source: AsyncIterable<Buffer | string>): AsyncGenerator<string> {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  let offset = 0;
  let cr = '';
  const lf = (text: string) => {
    const all = cr + text;
    cr = all.endsWith('\r') ? '\r' : '';
    return (cr ? all.slice(0, -1) : all).replace(/\r\n/g, '\n');
  };
  for await (const chunk of source) {
    if (typeof chunk === 'string') {
      yield lf(chunk);
      continue;
    }
    try {
      yield lf(decoder.decode(chunk, { stream: true }));
    } catch {
      throw new SvcError(
        'invalid_request',
        `the CSV is not UTF-8 (a byte near offset ${offset} is not; Latin-1 or Windows-1252?): convert it first, e.g. iconv -f latin1 -t utf-8 FILE.csv`,
      );
    }
    offset += chunk.length;
  }
  const rest = lf(decoder.decode()) + cr;
  if (rest) yield rest;
}

/** Which column holds what, from the first record. */
function columnsOf(first: string[]): { header: boolean; email: number; name: number; tags: number } {
  const names = first.map((c) => c.trim().toLowerCase());
  const email = names.indexOf('email');
  if (email === -1) return { header: false, email: 0, name: -1, tags: -1 };
  const name = ['name', 'first_name', 'full_name'].map((n) => names.indexOf(n)).find((i) => i !== -1) ?? -1;
  return { header: true, email, name, tags: names.indexOf('tags') };
}

/** The rows of a CSV, valid or not, in order. */
export async function* csvRows(source: AsyncIterable<Buffer | string>): AsyncGenerator<ImportRow | ImportError> {
  // csv-parse is loaded by an import only, not by every command that makes the service.
  const { parse } = await import('csv-parse');
  const parser = parse({ bom: true, relax_column_count: true, skip_empty_lines: true, info: true, max_record_size: MAX_RECORD });
  // A reader that stops early (the contacts check, a failure) destroys the parser: the feed stops too.
  const feed = (async () => {
    try {
      for await (const text of utf8(source)) {
        if (parser.destroyed) return;
        if (!parser.write(text)) {
          await new Promise<void>((r) => {
            const go = () => {
              parser.off('drain', go).off('close', go);
              r();
            };
            parser.on('drain', go).on('close', go);
          });
        }
      }
      if (!parser.destroyed) parser.end();
    } catch (e) {
      parser.destroy(e as Error);
    }
  })();
  let cols: ReturnType<typeof columnsOf> | null = null;
  try {
    for await (const { record, info } of parser as AsyncIterable<{ record: string[]; info: { lines: number } }>) {
      if (!cols) {
        cols = columnsOf(record);
        if (cols.header) continue;
      }
      // csv-parse says the line a record ends on; it starts as many lines before as it holds newlines.
      const line = info.lines - record.reduce((n, f) => n + (f.match(/\n/g)?.length ?? 0), 0);
      const raw = (record[cols.email] ?? '').trim();
      try {
        const email = subscriberEmail(raw);
        const name =
          cols.name === -1
            ? ''
            : (record[cols.name] ?? '')
                .trim()
                .replace(/[\u0000-\u001f\u007f]+/g, ' ')
                .slice(0, 1000);
        const row: ImportRow = { line, email, name };
        if (cols.tags !== -1)
          row.tags = [
            ...new Set(
              (record[cols.tags] ?? '')
                .split(';')
                .map((t) =>
                  t
                    .trim()
                    .replace(/[\u0000-\u001f\u007f]+/g, ' ')
                    .slice(0, 100),
                )
                .filter(Boolean),
            ),
          ].slice(0, 100);
        yield row;
      } catch (e) {
        yield { line, email: raw.slice(0, 254), error: (e as Error).message };
      }
    }
  } catch (e) {
    if (e instanceof SvcError) throw e;
    throw new SvcError('invalid_request', `the CSV cannot be read: ${(e as Error).message}`);
  } finally {
    if (!parser.destroyed) parser.destroy();
    await feed;
  }
}

/** Rows in batches of at most `size` with distinct emails (a later row of an email in a batch replaces the earlier), and the errors. */
export async function* batches(
  rows: AsyncIterable<ImportRow | ImportError>,
  size = IMPORT_BATCH,
): AsyncGenerator<{ rows: ImportRow[]; errors: ImportError[] }> {
  let batch = new Map<string, ImportRow>();
  let errors: ImportError[] = [];
  for await (const r of rows) {
    if ('error' in r) errors.push(r);
    else {
      batch.delete(r.email);
      batch.set(r.email, r);
    }
    if (batch.size >= size) {
      yield { rows: [...batch.values()], errors };
      batch = new Map();
      errors = [];
    }
  }
  if (batch.size || errors.length) yield { rows: [...batch.values()], errors };
}

/**
 * The import itself: `{imported, skipped, errors}`, errors null when there are none. On a plan with
 * a contacts quota the new addresses are counted first and an import that would pass it is refused
 * whole (402, with how many it would add). `progress` hears the rows read so far. The caller checks
 * the list and the workspace.
 */
export function csvImporter({ store, clock, random, config }: Pick<DepsOf<'subscribers'>, 'store' | 'clock' | 'random' | 'config'>) {
  const now = () => clock.now().toISOString();
  /** Refuses an import whose new addresses would take the workspace past its contacts, before anything is written. */
  async function checkImport(ws: Workspace, source: CsvSource, limit: number): Promise<void> {
    const used = await store.subscribers.contacts(ws.id);
    const seen = new Set<string>();
    let pending: string[] = [];
    let fresh = 0;
    const count = async () => {
      if (pending.length) fresh += await store.subscribers.newContacts(ws.id, pending);
      pending = [];
    };
    for await (const r of csvRows(source())) {
      if ('error' in r || seen.has(r.email)) continue;
      seen.add(r.email);
      pending.push(r.email);
      if (pending.length >= IMPORT_BATCH) await count();
      // Past the limit already: no need to read on (the Set stays within twice the limit).
      if (used + fresh > limit) break;
    }
    await count();
    if (used + fresh > limit) {
      throw new SvcError(
        'plan_limit',
        `this import would add ${fresh}${fresh > limit ? ' or more' : ''} new contacts; the ${ws.plan} plan allows ${limit} (${used} in use): upgrade the plan or import fewer`,
        {
          details: { code: 'quota_exceeded', kind: 'contacts', limit, used, would_add: fresh, upgrade_url: upgradeUrlOf(config, ws) },
        },
      );
    }
  }

  /** `dryRun`: everything but the writes; the result says so and how many addresses are new to the workspace. */
  return async (ws: Workspace, listId: string, source: CsvSource, progress?: (rows: number) => void, opts: { dryRun?: boolean } = {}) => {
    const limit = limitFor(ws, 'contacts');
    if (limit !== null) await checkImport(ws, source, limit);
    let imported = 0;
    let skipped = 0;
    let errorsTotal = 0;
    const errors: ImportError[] = [];
    let fresh = 0;
    for await (const b of batches(csvRows(source()))) {
      skipped += b.errors.length;
      errorsTotal += b.errors.length;
      errors.push(...b.errors.slice(0, Math.max(0, ERRORS_SHOWN - errors.length)));
      if (b.rows.length && opts.dryRun) {
        fresh += await store.subscribers.newContacts(
          ws.id,
          b.rows.map((r) => r.email),
        );
        imported += b.rows.length;
      } else if (b.rows.length) {
        // New rows are active, even on a double opt-in list (spec.md).
        const at = now();
        const r = await store.subscribers.upsertMany(
          ws.id,
          listId,
          b.rows.map((row) => subscribeRow(random, ws, listId, row, 'active', at)),
          limit,
        );
        if ('refused' in r) createdOrLimit(r, ws, upgradeUrlOf(config, ws));
        imported += b.rows.length;
      }
      progress?.(imported + skipped);
    }
    return {
      imported,
      skipped,
      errors: errors.length ? errors : null,
      ...(errorsTotal > errors.length ? { errors_total: errorsTotal } : {}),
      ...(opts.dryRun ? { dry_run: true, new_contacts: fresh } : {}),
    };
  };
}

// Time and randomness are injected so that quota windows, retention and retries are tested by
// moving a clock, never by sleeping (DESIGN.md "Shape").
import { randomBytes, randomUUID } from 'node:crypto';

export interface Clock {
  now(): Date;
}

export interface Random {
  bytes(n: number): Buffer;
  /** A random UUID: the ids people see and type by a short prefix (records, inbox items, subscribers). */
  uuid(): string;
  /** A UUID that sorts by when it was made (sortable below): the ids of rows nobody types (jobs, events, Message-IDs). */
  sortable(): string;
}

export const systemClock: Clock = { now: () => new Date() };

/**
 * Small requests (tokens: 18-32 bytes, one or more per message record) are cut from a pool of the
 * same CSPRNG's bytes, refilled 8 KB at a time, as Node's randomUUID does: a call to randomBytes per
 * token cost more than the rest of a broadcast copy's record (measured: 1.7 s of 8 for 50,000).
 * Bytes handed out are copies and never handed out twice.
 */
const POOL = 8192;
let pool = Buffer.alloc(0);
let at = 0;
function pooledBytes(n: number): Buffer {
  if (n > 256) return randomBytes(n);
  if (at + n > pool.length) {
    pool = randomBytes(POOL);
    at = 0;
  }
  const out = Buffer.from(pool.subarray(at, at + n));
  at += n;
  return out;
}

/**
 * A UUID of version 7 (RFC 9562 §5.7): the time in milliseconds, then 74 random bits. Rows made one
 * after another get ids that sort after each other, so a new row's id lands at the end of its
 * indexes rather than on a random page of each: a batch of sends then writes a few index pages, not
 * one per row per index (SQLite's write-ahead log took 54 KB per accepted 10 KB send with random ids
 * everywhere, 31 KB with these everywhere). Ids people type keep random first characters instead
 * (uuid): two made in the same minute would otherwise share their first eight.
 */
function sortable(): string {
  const b = pooledBytes(16);
  b.writeUIntBE(Date.now(), 0, 6);
  b[6] = (b[6]! & 0x0f) | 0x70;
  b[8] = (b[8]! & 0x3f) | 0x80;
  const h = b.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

export const systemRandom: Random = {
  bytes: pooledBytes,
  uuid: () => randomUUID(),
  sortable,
};

/** A clock tests move by hand. */
export class ManualClock implements Clock {
  #ms: number;
  constructor(start: Date | string = '2026-01-01T00:00:00.000Z') {
    this.#ms = new Date(start).getTime();
  }
  now(): Date {
    return new Date(this.#ms);
  }
  advance(ms: number): void {
    this.#ms += ms;
  }
  set(to: Date | string): void {
    this.#ms = new Date(to).getTime();
  }
}

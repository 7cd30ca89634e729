// Time and randomness are injected so that quota windows, retention and retries are tested by
// moving a clock, never by sleeping (DESIGN.md "Shape").
import { randomBytes, randomUUID } from 'node:crypto';

export interface Clock {
  now(): Date;
}

export interface Random {
  bytes(n: number): Buffer;
  uuid(): string;
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

export const systemRandom: Random = {
  bytes: pooledBytes,
  uuid: () => randomUUID(),
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

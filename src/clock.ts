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

export const systemRandom: Random = {
  bytes: (n) => randomBytes(n),
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

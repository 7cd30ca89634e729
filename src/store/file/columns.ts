// Growable columns of numbers for the file store's in-memory indexes: typed arrays in chunks of
// CHUNK entries, so that a million entries cost what they hold (no JS object per entry, no
// garbage to collect) and growing never copies what is there or leaves more than one chunk unused.

const SHIFT = 14;
/** Entries per chunk. */
export const CHUNK = 1 << SHIFT;
const MASK = CHUNK - 1;

type Typed = Uint8Array | Uint16Array | Uint32Array | Float64Array;

export class Column<A extends Typed> {
  readonly #chunks: A[] = [];
  constructor(readonly make: (n: number) => A) {}

  get(i: number): number {
    return this.#chunks[i >>> SHIFT]![i & MASK]!;
  }

  set(i: number, v: number): void {
    this.#chunks[i >>> SHIFT]![i & MASK] = v;
  }

  /** Makes room for entries below `n` (new entries read 0). */
  reserve(n: number): void {
    while (this.#chunks.length * CHUNK < n) this.#chunks.push(this.make(CHUNK));
  }

  /** Its first `n` entries as bytes (a snapshot of it). */
  bytes(n: number): Buffer {
    const out = this.make(n);
    for (let i = 0; i < n; i += CHUNK) out.set(this.#chunks[i >>> SHIFT]!.subarray(0, Math.min(CHUNK, n - i)), i);
    return Buffer.from(out.buffer, out.byteOffset, out.byteLength);
  }

  /** Holds `n` entries read back from `bytes` (what bytes(n) gave), in place of what it held. */
  load(bytes: Buffer, n: number): void {
    const all = this.make(Math.ceil(n / CHUNK) * CHUNK);
    new Uint8Array(all.buffer, all.byteOffset, all.byteLength).set(bytes);
    this.#chunks.length = 0;
    for (let i = 0; i < all.length; i += CHUNK) this.#chunks.push(all.subarray(i, i + CHUNK) as A);
  }
}

export const u8 = (): Column<Uint8Array> => new Column((n) => new Uint8Array(n));
export const u16 = (): Column<Uint16Array> => new Column((n) => new Uint16Array(n));
export const u32 = (): Column<Uint32Array> => new Column((n) => new Uint32Array(n));
export const f64 = (): Column<Float64Array> => new Column((n) => new Float64Array(n));

/** FNV-1a over a string's UTF-16 units, from `seed`: 32 bits. */
export function fnv(s: string, seed = 0x811c9dc5): number {
  let h = seed >>> 0;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  // A final mix, so that keys differing in their last characters spread over the table.
  h ^= h >>> 15;
  h = Math.imul(h, 0x2c1b3c6d);
  h ^= h >>> 12;
  return h >>> 0;
}

/**
 * The first 32 bits of an id written in hex (a UUID's first 8 digits), kept per entry so that a
 * short id typed on the command line finds its candidates without a string in memory; 0 for an id
 * that does not start so (its candidates are confirmed on disk like any other).
 */
export function hexHead(id: string): number {
  const m = /^[0-9a-f]{8}/i.exec(id);
  return m ? Number.parseInt(m[0], 16) >>> 0 : 0;
}

/**
 * Tells, from its head (hexHead), whether an id may start with `prefix` (lower-case hex): a test of
 * its first 8 digits at most, the caller confirming the rest on disk. Null when those are not hex
 * (no UUID starts so).
 */
export function headTest(prefix: string): ((head: number) => boolean) | null {
  const first = prefix.slice(0, 8);
  if (!/^[0-9a-f]*$/.test(first)) return null;
  const k = first.length;
  if (k === 0) return () => true;
  const want = Number.parseInt(first, 16);
  const shift = 32 - 4 * k;
  return (head) => head >>> shift === want;
}

/**
 * An open-addressing hash table of entry numbers (linear probing), keyed by a 32-bit hash the
 * caller keeps per entry: the table holds only the numbers, so it costs about 6 bytes per key, and
 * growing rehashes from the caller's hashes. Several entries may share a hash; `probe` visits each
 * (the caller tells them apart). Entries are never removed one by one: the owner rebuilds.
 */
export class HashSlots {
  #slots = new Uint32Array(16);
  #count = 0;
  constructor(readonly hashOf: (entry: number) => number) {}

  get count(): number {
    return this.#count;
  }

  get bytes(): number {
    return this.#slots.byteLength;
  }

  /** Its slots as bytes (a snapshot of it). */
  image(): Buffer {
    return Buffer.from(this.#slots.buffer, this.#slots.byteOffset, this.#slots.byteLength);
  }

  /** Holds what image() gave, with `count` keys, in place of what it held. */
  load(image: Buffer, count: number): void {
    const slots = new Uint32Array(image.length / 4);
    new Uint8Array(slots.buffer).set(image);
    this.#slots = slots;
    this.#count = count;
  }

  insert(entry: number, hash: number): void {
    if ((this.#count + 1) * 5 > this.#slots.length * 4) this.#grow();
    this.#place(this.#slots, entry, hash);
    this.#count++;
  }

  /** Calls `fn` with each entry stored under `hash`, in the order inserted, until it returns true. */
  probe(hash: number, fn: (entry: number) => boolean | void): void {
    const slots = this.#slots;
    for (let i = hash % slots.length; ; i = i + 1 === slots.length ? 0 : i + 1) {
      const s = slots[i]!;
      if (s === 0) return;
      if (this.hashOf(s - 1) === hash && fn(s - 1)) return;
    }
  }

  #place(slots: Uint32Array, entry: number, hash: number): void {
    let i = hash % slots.length;
    while (slots[i] !== 0) i = i + 1 === slots.length ? 0 : i + 1;
    slots[i] = entry + 1;
  }

  /** Makes room for `n` keys at once (a load of known size grows the table once). */
  reserve(n: number): void {
    if (n * 5 > this.#slots.length * 4) this.#grow(n);
  }

  #grow(keys = this.#count): void {
    // Not a power of two: sized to the keys (twice as many slots), not to the next doubling.
    const next = new Uint32Array(Math.max(16, keys * 2 + 1));
    const old = this.#slots;
    // Walked from an empty slot, so that no run of slots is split: entries of one hash then come in
    // the order they were inserted, and are placed again in that order (probe's order).
    const start = old.indexOf(0);
    for (let k = 0; k < old.length; k++) {
      const s = old[(start + k) % old.length]!;
      if (s !== 0) this.#place(next, s - 1, this.hashOf(s - 1));
    }
    this.#slots = next;
  }
}

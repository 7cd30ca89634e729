// Reading one message's DATA within a listener's memory budget (server.ts DataBudget), for the
// relay and the MX alike: past the size limit nothing more is kept and the rest is read and
// dropped (552); when the budget is spent the message is refused temporarily (451 4.3.1) rather
// than held; the memory is given back when the caller is done with the message, or when the
// connection breaks in the middle.
import type { Readable } from 'node:stream';
import type { ErrorKindName } from '../../src/errors.js';
import type { DataBudget } from './server.js';

export type DataRead = { raw: Buffer; size: number } | { refused: ErrorKindName; size: number };

export interface DataReader {
  /** Resolves once the data has ended: the message, or the refusal it gets. */
  done: Promise<DataRead>;
  /** Gives the message's memory back (idempotent). */
  release(): void;
}

export function readData(stream: Readable, budget: DataBudget, maxSize: number): DataReader {
  let chunks: Buffer[] = [];
  let size = 0;
  let held = 0;
  let overBudget = false;
  const release = () => {
    budget.give(held);
    held = 0;
  };
  const done = new Promise<DataRead>((resolve) => {
    stream.on('data', (c: Buffer) => {
      size += c.length;
      if (size > maxSize || overBudget) return;
      if (!budget.take(c.length)) {
        overBudget = true;
        chunks = [];
        release();
        return;
      }
      held += c.length;
      chunks.push(c);
    });
    stream.on('error', () => release());
    stream.on('end', () => {
      if ((stream as unknown as { sizeExceeded?: boolean }).sizeExceeded || size > maxSize) {
        release();
        return resolve({ refused: 'message_too_big', size });
      }
      if (overBudget) return resolve({ refused: 'relay_memory_full', size });
      const raw = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size);
      chunks = [];
      resolve({ raw, size });
    });
  });
  return { done, release };
}

// While `svc serve` owns a file store, admin commands reach it over a unix socket in the store
// directory (mode 0600) and run store operations inside the daemon, so both sides see one state.
// One JSON object per line each way: {id, group, op, args} → {id, result} | {id, error:{kind,message}}.
// The bus rides along: {publish: topic} tells the daemon's bus (no answer), and after {listen: true}
// the daemon sends {event: topic} for everything published on its bus. Buffers (a received message)
// travel as JSON.stringify writes them and are made Buffers again on arrival (parseAdminLine).
import { join } from 'node:path';
import type { ErrorKindName } from '../../errors.js';
import type { Topic } from '../../model/topic.js';

export const SOCKET_FILE = 'svc.sock';
export const socketPath = (dir: string): string => join(dir, SOCKET_FILE);

export interface AdminRequest {
  id: number;
  group: string;
  op: string;
  args: unknown[];
}

export type AdminMessage = AdminRequest | { publish: Topic } | { listen: true };

export type AdminResponse =
  { id: number; result: unknown } | { id: number; error: { kind: ErrorKindName; message: string } } | { event: Topic };

/** A Buffer as JSON.stringify writes it. */
const isBufferJson = (v: unknown): v is { type: 'Buffer'; data: number[] } =>
  typeof v === 'object' &&
  v !== null &&
  (v as { type?: unknown }).type === 'Buffer' &&
  Array.isArray((v as { data?: unknown }).data) &&
  Object.keys(v).length === 2;

/** One line of the protocol, with its Buffers made Buffers again. */
export const parseAdminLine = <M>(line: string): M =>
  JSON.parse(line, (_k, v: unknown) => (isBufferJson(v) ? Buffer.from(v.data) : v)) as M;

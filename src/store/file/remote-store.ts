// The Store an admin command uses while a daemon owns the file store: every operation is sent over
// the daemon's admin socket (admin-protocol.ts) and runs there.
import { connect, type Socket } from 'node:net';
import { createInterface } from 'node:readline';
import { errorKinds, SvcError, type ErrorKindName } from '../../errors.js';
import { storeOperations, type Store, type StoreGroups } from '../types.js';
import { parseAdminLine, type AdminMessage, type AdminRequest, type AdminResponse } from './admin-protocol.js';
import { isTopic, type Topic } from '../../model/topic.js';

interface Pending {
  resolve: (v: unknown) => void;
  reject: (e: unknown) => void;
}

export class RemoteStore {
  readonly describe: string;
  #socket: Socket;
  #nextId = 1;
  #pending = new Map<number, Pending>();
  #broken: SvcError | null = null;
  #heard = new Set<(t: Topic) => void>();
  #listening = false;

  private constructor(socket: Socket, path: string) {
    this.#socket = socket;
    this.describe = `daemon at ${path}`;
    createInterface({ input: socket }).on('line', (line) => this.#onLine(line));
    const fail = (why: string) => {
      this.#broken = new SvcError('store_unavailable', `lost the connection to svc serve (${why})`);
      for (const p of this.#pending.values()) p.reject(this.#broken);
      this.#pending.clear();
    };
    socket.on('error', (e) => fail(e.message));
    socket.on('close', () => fail('closed'));
  }

  static connect(path: string): Promise<Store> {
    return new Promise((resolve, reject) => {
      const socket = connect(path);
      socket.once('error', reject);
      socket.once('connect', () => {
        socket.off('error', reject);
        resolve(new RemoteStore(socket, path).asStore());
      });
    });
  }

  #onLine(line: string): void {
    let msg: AdminResponse;
    try {
      msg = parseAdminLine<AdminResponse>(line);
    } catch {
      return;
    }
    if ('event' in msg) {
      if (isTopic(msg.event)) for (const fn of this.#heard) fn(msg.event);
      return;
    }
    const p = this.#pending.get(msg.id);
    if (!p) return;
    this.#pending.delete(msg.id);
    if ('error' in msg) {
      const kind: ErrorKindName = msg.error.kind in errorKinds ? msg.error.kind : 'internal';
      p.reject(new SvcError(kind, msg.error.message));
    } else {
      p.resolve(msg.result);
    }
  }

  #call(group: string, op: string, args: unknown[]): Promise<unknown> {
    if (this.#broken) return Promise.reject(this.#broken);
    const id = this.#nextId++;
    const req: AdminRequest = { id, group, op, args };
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      this.#send(req);
    });
  }

  #send(msg: AdminMessage): void {
    if (!this.#broken) this.#socket.write(JSON.stringify(msg) + '\n');
  }

  asStore(): Store {
    const groups: Record<string, Record<string, (...args: unknown[]) => Promise<unknown>>> = {};
    for (const [group, ops] of Object.entries(storeOperations)) {
      groups[group] = {};
      for (const op of Object.keys(ops)) groups[group][op] = (...args) => this.#call(group, op, args);
    }
    return {
      ...(groups as unknown as StoreGroups),
      describe: this.describe,
      // The daemon's bus, over the socket: what this command queues wakes the daemon's workers at
      // once, and a live view hears what the daemon does.
      events: {
        announce: (topic) => this.#send({ publish: topic }),
        listen: (fn) => {
          this.#heard.add(fn);
          if (!this.#listening) {
            this.#listening = true;
            this.#send({ listen: true });
          }
          return () => this.#heard.delete(fn);
        },
      },
      health: async () => {
        if (this.#broken) throw this.#broken;
      },
      close: async () => {
        this.#socket.end();
      },
    };
  }
}

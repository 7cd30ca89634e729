// daemon/: the transports of `svc serve` (http/, smtp/, the admin socket) and its workers
// (workers/); serve.ts starts and stops them.
//
// The daemon's side of the admin socket (src/store/file/admin-protocol.ts): admin commands run next
// to `svc serve` send store operations here, so they take effect in the daemon at once and neither
// side overwrites the other's writes. Only operations listed in storeOperations are answered.
import { createServer, type Server, type Socket } from 'node:net';
import { chmod, unlink } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { toSvcError } from '../src/errors.js';
import type { Log } from '../src/log.js';
import { storeOperations, type Store } from '../src/store/types.js';
import { parseAdminLine, type AdminMessage, type AdminRequest, type AdminResponse } from '../src/store/file/admin-protocol.js';
import type { Bus } from '../src/bus.js';
import { isTopic } from '../src/model/topic.js';

export interface AdminSocket {
  close(): Promise<void>;
}

async function answer(store: Store, req: AdminRequest): Promise<AdminResponse> {
  const ops = Object.hasOwn(storeOperations, req.group) ? storeOperations[req.group as keyof typeof storeOperations] : undefined;
  if (!ops || !Object.hasOwn(ops, req.op) || !Array.isArray(req.args)) {
    return { id: req.id, error: { kind: 'usage', message: `unknown store operation ${String(req.group)}.${String(req.op)}` } };
  }
  const group = store[req.group as keyof typeof storeOperations] as unknown as Record<string, (...a: unknown[]) => Promise<unknown>>;
  try {
    return { id: req.id, result: (await group[req.op]!(...req.args)) ?? null };
  } catch (e) {
    const err = toSvcError(e);
    return { id: req.id, error: { kind: err.kind, message: err.message } };
  }
}

export async function startAdminSocket(path: string, store: Store, log: Log, bus: Bus): Promise<AdminSocket> {
  // We hold the store lock, so a socket file left here is from a daemon that died.
  await unlink(path).catch(() => {});
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    let unlisten: (() => void) | null = null;
    socket.on('close', () => {
      sockets.delete(socket);
      unlisten?.();
    });
    socket.on('error', () => {});
    const send = (res: AdminResponse) => {
      if (!socket.destroyed) socket.write(JSON.stringify(res) + '\n');
    };
    createInterface({ input: socket }).on('line', (line) => {
      let msg: AdminMessage;
      try {
        msg = parseAdminLine<AdminMessage>(line);
      } catch {
        socket.destroy();
        return;
      }
      // A command's announcement wakes this daemon's workers; a live view hears the bus.
      if ('publish' in msg) {
        if (isTopic(msg.publish)) bus.publish(msg.publish);
        return;
      }
      if ('listen' in msg) {
        unlisten ??= bus.subscribeAny((event) => send({ event }));
        return;
      }
      void answer(store, msg as AdminRequest).then(send);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(path, () => resolve());
  });
  await chmod(path, 0o600);
  server.on('error', (e) => log.error(`admin socket: ${e.message}`));
  return {
    close: async () => {
      const closed = new Promise<void>((r) => server.close(() => r()));
      for (const s of sockets) s.end();
      await closed;
      await unlink(path).catch(() => {});
    },
  };
}

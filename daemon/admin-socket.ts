// The daemon's side of the admin socket (src/store/file/admin-protocol.ts): admin commands run next
// to `svc serve` send store operations here, so they take effect in the daemon at once and neither
// side overwrites the other's writes. Only operations listed in storeOperations are answered.
import { createServer, type Server, type Socket } from 'node:net';
import { chmod, unlink } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { toSvcError } from '../src/errors.js';
import type { Log } from '../src/log.js';
import { storeOperations, type Store } from '../src/store/types.js';
import type { AdminRequest, AdminResponse } from '../src/store/file/admin-protocol.js';

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

export async function startAdminSocket(path: string, store: Store, log: Log): Promise<AdminSocket> {
  // We hold the store lock, so a socket file left here is from a daemon that died.
  await unlink(path).catch(() => {});
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
    createInterface({ input: socket }).on('line', (line) => {
      let req: AdminRequest;
      try {
        req = JSON.parse(line) as AdminRequest;
      } catch {
        socket.destroy();
        return;
      }
      void answer(store, req).then((res) => {
        if (!socket.destroyed) socket.write(JSON.stringify(res) + '\n');
      });
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

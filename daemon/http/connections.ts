// The API's connections, as a stop needs them. Node's closeIdleConnections() and fastify's close
// miss keep-alive connections that go idle after the close began (a browser's, once its event
// stream ended): those held the stop for fastify's keepAliveTimeout (72 s). Here each connection is
// known as busy (a request in flight, an event stream open) or idle, and a stop closes the idle
// ones as they become idle; requests in flight still finish.
import type { Server } from 'node:http';
import type { Socket } from 'node:net';

export function trackConnections(server: Server): { closeIdle(): void } {
  const all = new Set<Socket>();
  const busy = new Map<Socket, number>();
  server.on('connection', (socket: Socket) => {
    all.add(socket);
    socket.once('close', () => {
      all.delete(socket);
      busy.delete(socket);
    });
  });
  server.on('request', (req, res) => {
    const socket = req.socket;
    busy.set(socket, (busy.get(socket) ?? 0) + 1);
    res.once('close', () => {
      const n = (busy.get(socket) ?? 1) - 1;
      if (n > 0) busy.set(socket, n);
      else busy.delete(socket);
    });
  });
  return {
    closeIdle() {
      for (const socket of all) if (!busy.has(socket)) socket.destroy();
    },
  };
}

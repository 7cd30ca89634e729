// A loopback webhook receiver in its own process for the webhook benchmark: answers 200 at once,
// prints its port, then how many requests arrived every 50 ms, and with `--log` one line per
// request: `hit <message_id> <arrival ms since the epoch>`.
import { createServer } from 'node:http';

let count = 0;
let last = -1;
const log = process.argv.includes('--log');
const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    count++;
    if (log)
      process.stdout.write(`hit ${(JSON.parse(Buffer.concat(chunks).toString()) as { message_id: string }).message_id} ${Date.now()}\n`);
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end('ok');
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`port ${(server.address() as { port: number }).port}\n`);
  setInterval(() => {
    if (count !== last) process.stdout.write(`count ${(last = count)}\n`);
  }, 50);
});

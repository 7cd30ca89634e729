// A loopback SMTP sink in its own process for the end-to-end benchmark: accepts and discards,
// printing its port, then how many messages it has received, every 50 ms.
import { SMTPServer } from 'smtp-server';

let count = 0;
// `--auth`: accepts any AUTH PLAIN/LOGIN, as the ceiling for the relay benchmark.
const auth = process.argv.includes('--auth');
const server = new SMTPServer({
  authOptional: !auth,
  allowInsecureAuth: true,
  disabledCommands: auth ? ['STARTTLS'] : ['AUTH', 'STARTTLS'],
  onAuth: (_a, _s, cb) => cb(null, { user: 'bench' }),
  size: 25 * 1024 * 1024,
  logger: false,
  onData(stream, _session, cb) {
    stream.on('data', () => {});
    stream.on('end', () => {
      count++;
      cb();
    });
  },
});
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`port ${(server.server.address() as { port: number }).port}\n`);
  let last = -1;
  setInterval(() => {
    if (count !== last) process.stdout.write(`count ${(last = count)}\n`);
  }, 50);
});

// A loopback SMTP sink in its own process for the benchmarks: accepts and discards, printing its
// port, then how many messages it has received, every 50 ms.
//
// `--auth`: accepts any AUTH PLAIN/LOGIN, as the ceiling for the relay benchmark.
// `--no-pause`: greets at once (the `greetingDelay` option our smtp-server patch adds), as the relay
// does, instead of smtp-server's 100 ms early-talker pause: the ceiling for one connection per message.
// `--fsync FILE`: the durable floor for the MX benchmark. Each message is appended to FILE and its
// 250 waits until an `fdatasync` that began after it has finished; messages that arrive while one
// runs share the next (group commit), so this is the least any server that keeps mail before its
// 250 must pay on this disk. Nothing of svc's is used for it.
import { SMTPServer } from 'smtp-server';
import { open } from 'node:fs/promises';

let count = 0;
const auth = process.argv.includes('--auth');
const noPause = process.argv.includes('--no-pause');
const fsyncAt = process.argv.indexOf('--fsync');
const file = fsyncAt > 0 ? await open(process.argv[fsyncAt + 1]!, 'a') : null;

/** Messages waiting for the next flush, with the callbacks that answer them. */
let pending: Array<{ data: Buffer; done: (e?: Error) => void }> = [];
let flushing = false;
async function flush(): Promise<void> {
  flushing = true;
  while (pending.length) {
    const batch = pending;
    pending = [];
    try {
      await file!.write(Buffer.concat(batch.map((m) => m.data)));
      await file!.datasync();
      for (const m of batch) m.done();
    } catch (e) {
      for (const m of batch) m.done(e as Error);
    }
  }
  flushing = false;
}

const server = new SMTPServer({
  authOptional: !auth,
  allowInsecureAuth: true,
  disabledCommands: auth ? ['STARTTLS'] : ['AUTH', 'STARTTLS'],
  onAuth: (_a, _s, cb) => cb(null, { user: 'bench' }),
  size: 25 * 1024 * 1024,
  logger: false,
  ...(noPause ? { greetingDelay: 0, disableReverseLookup: true } : {}),
  onData(stream, _session, cb) {
    const chunks: Buffer[] = [];
    stream.on('data', (c: Buffer) => file && chunks.push(c));
    stream.on('end', () => {
      count++;
      if (!file) return cb();
      pending.push({ data: Buffer.concat(chunks), done: (e) => cb(e ?? null) });
      if (!flushing) void flush();
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

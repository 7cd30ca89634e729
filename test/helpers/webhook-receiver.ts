// A real HTTP receiver on loopback that checks every webhook the way a customer would (the README's
// verifyWebhook on the raw body) and answers as the test tells it: a status per request, a body, a
// redirect, or no answer at all.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { verifyWebhook } from '../../src/webhooks/verify.js';

export interface Received {
  headers: IncomingMessage['headers'];
  raw: string;
  body: Record<string, any>;
  /** What verifyWebhook said with the secret the test set. */
  verified: boolean;
  at: number;
}

type Answer = { status: number; body?: string; headers?: Record<string, string> } | 'hang';

export class Receiver {
  received: Received[] = [];
  secret = '';
  /** The receiver's idea of now, in Unix seconds (tests on a moved clock set it). */
  now: () => number = () => Math.floor(Date.now() / 1000);
  /** Answers in order, then `fallback`. */
  answers: Answer[] = [];
  fallback: Answer = { status: 200, body: 'ok' };
  #waiters: Array<() => void> = [];
  #hanging: ServerResponse[] = [];
  readonly server = createServer((req, res) => this.#handle(req, res));

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hook`;
  }

  #handle(req: IncomingMessage, res: ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      let body: Record<string, any> = {};
      try {
        body = JSON.parse(raw.toString()) as Record<string, any>;
      } catch {
        /* kept empty: the test sees verified false */
      }
      this.received.push({
        headers: req.headers,
        raw: raw.toString(),
        body,
        verified: verifyWebhook(raw, req.headers['x-svc-signature'] as string | undefined, this.secret, { now: this.now() }).ok,
        at: Date.now(),
      });
      for (const w of this.#waiters.splice(0)) w();
      const a = this.answers.shift() ?? this.fallback;
      if (a === 'hang') {
        this.#hanging.push(res);
        return;
      }
      res.writeHead(a.status, a.headers ?? {});
      res.end(a.body ?? '');
    });
  }

  /** Resolves when `n` requests have arrived in all. */
  async waitFor(n: number, ms = 10_000): Promise<Received[]> {
    const deadline = Date.now() + ms;
    while (this.received.length < n) {
      if (Date.now() > deadline) throw new Error(`receiver: ${this.received.length} of ${n} requests arrived`);
      await new Promise<void>((res) => {
        const t = setTimeout(res, 50);
        this.#waiters.push(() => {
          clearTimeout(t);
          res();
        });
      });
    }
    return this.received;
  }

  async close(): Promise<void> {
    for (const r of this.#hanging) r.destroy();
    this.server.closeAllConnections();
    await new Promise((res) => this.server.close(res));
  }
}

export async function receiver(t: { after(fn: () => unknown): void }): Promise<Receiver> {
  const r = new Receiver();
  await new Promise<void>((res) => r.server.listen(0, '127.0.0.1', res));
  t.after(() => r.close());
  return r;
}

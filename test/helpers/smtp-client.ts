// A raw SMTP client for exact reply codes: one command, one full reply (all its lines).
import { connect, type Socket } from 'node:net';
import { connect as tlsConnect, type TLSSocket } from 'node:tls';

/** A connection, a reply or a TLS handshake that takes longer fails the test (a server answers in milliseconds). */
const DEADLINE_MS = 30_000;

/**
 * Clients still connected: a test daemon ends them before it stops (daemon.ts), as a client would
 * QUIT; a session left open would hold the stop for the listeners' 5 s grace.
 */
const connected = new Set<RawSmtp>();
export function disconnectClients(): void {
  for (const c of connected) c.destroy();
}

export class RawSmtp {
  #socket: Socket | TLSSocket;
  #buf = '';
  #waiting: Array<(lines: string[]) => void> = [];
  /** Replies that came before anyone asked for them. */
  #early: string[][] = [];
  closed = false;

  private constructor(socket: Socket) {
    this.#socket = socket;
    this.#listen(socket);
    connected.add(this);
  }

  static async open(url: string): Promise<{ client: RawSmtp; greeting: string[] }> {
    const u = new URL(url);
    const socket = connect(Number(u.port), u.hostname);
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => (socket.destroy(), reject(new Error(`${url}: no connection within ${DEADLINE_MS} ms`))), DEADLINE_MS);
      socket.once('connect', () => (clearTimeout(timer), resolve()));
      socket.once('error', (e) => (clearTimeout(timer), reject(e)));
    });
    const client = new RawSmtp(socket);
    return { client, greeting: await client.reply() };
  }

  #listen(s: Socket | TLSSocket): void {
    s.on('data', (d: Buffer) => {
      this.#buf += d.toString('utf8');
      for (;;) {
        const lines = this.#buf.split('\r\n');
        const done = lines.findIndex((l) => /^\d{3} /.test(l) || /^\d{3}$/.test(l));
        if (done < 0) break;
        this.#buf = lines.slice(done + 1).join('\r\n');
        // A reply nobody waits for yet (a 421 right behind a 250) is kept for the next reply().
        const waiter = this.#waiting.shift();
        if (waiter) waiter(lines.slice(0, done + 1));
        else this.#early.push(lines.slice(0, done + 1));
      }
    });
    s.on('close', () => {
      this.closed = true;
      connected.delete(this);
      for (const w of this.#waiting.splice(0)) w([]);
    });
    s.on('error', () => {});
  }

  /** The next full reply ([] when the connection closed first); fails after `ms` without one. */
  reply(ms = DEADLINE_MS): Promise<string[]> {
    return new Promise((resolve, reject) => {
      const early = this.#early.shift();
      if (early) return resolve(early);
      if (this.closed) return resolve([]);
      const timer = setTimeout(() => {
        this.#waiting.splice(this.#waiting.indexOf(waiter), 1);
        reject(new Error(`no SMTP reply within ${ms} ms`));
      }, ms);
      const waiter = (lines: string[]) => (clearTimeout(timer), resolve(lines));
      this.#waiting.push(waiter);
    });
  }

  /** Sends raw bytes (no CRLF added). */
  write(data: string | Buffer): void {
    this.#socket.write(data);
  }

  async cmd(line: string): Promise<string> {
    const r = this.reply();
    this.#socket.write(line + '\r\n');
    return (await r).join('\n');
  }

  /** STARTTLS, optionally with plaintext bytes pipelined right behind it (an injection attempt). */
  async starttls(pipelined = ''): Promise<string> {
    const r = await this.cmd('STARTTLS' + (pipelined ? '\r\n' + pipelined : '').replace(/\r\n$/, ''));
    if (!r.startsWith('220')) return r;
    const plain = this.#socket as Socket;
    plain.removeAllListeners('data');
    const secure = tlsConnect({ socket: plain, rejectUnauthorized: false, minVersion: 'TLSv1.2' });
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => (secure.destroy(), reject(new Error(`no TLS handshake within ${DEADLINE_MS} ms`))), DEADLINE_MS);
      secure.once('secureConnect', () => (clearTimeout(timer), resolve()));
      secure.once('error', (e) => (clearTimeout(timer), reject(e)));
    });
    this.#socket = secure;
    this.#listen(secure);
    return r;
  }

  get secure(): boolean {
    return 'encrypted' in this.#socket;
  }

  destroy(): void {
    this.#socket.destroy();
  }
}

export const plain = (key: string, user = 'anything') => Buffer.from(`\0${user}\0${key}`).toString('base64');

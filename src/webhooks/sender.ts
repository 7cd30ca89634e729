// One HTTP POST of one webhook (undici): the target checked and the connection pinned to the
// checked address (guard.ts), no redirects followed, at most 2 KB of the answer read, a time limit
// on the whole exchange. Keep-alive connections are reused per origin.
import type { LookupFunction } from 'node:net';
import type { Agent } from 'undici';
import { checkTarget, pickAddress, type Resolve, type ResolvedAddress } from './guard.js';

/** How much of an answer is read and kept in the delivery log (spec.md "Events"). */
export const RESPONSE_CAP = 2048;
/** spec.md: the service waits up to 8 seconds for an answer. */
export const DEFAULT_TIMEOUT_MS = 8000;

export interface SendResult {
  ok: boolean;
  status_code: number | null;
  error: string | null;
  response: string;
  duration_ms: number;
  /** The endpoint answered 410 Gone: it asks not to be called again. */
  gone: boolean;
}

export interface SenderOptions {
  timeoutMs: number;
  allowInsecure: boolean;
  resolve: Resolve;
  /** Connections kept per origin. */
  connections?: number;
}

const RESOLVED_TTL_MS = 30_000;

type Client = { agent: Agent; request: typeof import('undici').request };

export class WebhookSender {
  /**
   * The agent and undici itself, made by the first webhook sent: undici is about 20 MB of a
   * daemon's memory, which a daemon whose workspaces have no endpoint never needs.
   */
  #client: Promise<Client> | null = null;
  /** host → the address checked last; the agent connects to nothing else. */
  readonly #pins = new Map<string, ResolvedAddress & { at: number }>();

  constructor(private readonly opts: SenderOptions) {}

  #connect(): Promise<Client> {
    return (this.#client ??= import('undici').then(({ Agent, request }) => {
      const pinned: LookupFunction = (hostname, options, cb) => {
        const pin = this.#pins.get(hostname);
        const done = cb as (
          err: NodeJS.ErrnoException | null,
          address: string | Array<{ address: string; family: number }>,
          family?: number,
        ) => void;
        if (!pin) return done(Object.assign(new Error(`${hostname} was not checked`), { code: 'ENOTFOUND' }), '', 4);
        if ((options as { all?: boolean }).all) done(null, [{ address: pin.address, family: pin.family }]);
        else done(null, pin.address, pin.family);
      };
      const agent = new Agent({
        connections: this.opts.connections ?? 64,
        connect: { lookup: pinned, timeout: this.opts.timeoutMs },
        headersTimeout: this.opts.timeoutMs,
        bodyTimeout: this.opts.timeoutMs,
        keepAliveTimeout: 30_000,
      });
      return { agent, request };
    }));
  }

  async post(rawUrl: string, headers: Record<string, string>, body: string): Promise<SendResult> {
    const t0 = performance.now();
    const done = (r: Omit<SendResult, 'duration_ms' | 'gone'>): SendResult => ({
      ...r,
      gone: r.status_code === 410,
      duration_ms: Math.round(performance.now() - t0),
    });
    let url: URL;
    try {
      const target = checkTarget(rawUrl, this.opts.allowInsecure);
      url = target.url;
      if (!target.literal) {
        const cached = this.#pins.get(target.host);
        if (!cached || Date.now() - cached.at > RESOLVED_TTL_MS)
          this.#pins.set(target.host, { ...(await pickAddress(target, this.opts.resolve, this.opts.allowInsecure)), at: Date.now() });
      } else await pickAddress(target, this.opts.resolve, this.opts.allowInsecure);
    } catch (e) {
      return done({ ok: false, status_code: null, error: (e as Error).message, response: '' });
    }
    const { agent, request } = await this.#connect();
    const signal = AbortSignal.timeout(this.opts.timeoutMs);
    try {
      const res = await request(url, { method: 'POST', headers, body, dispatcher: agent, signal });
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const chunk of res.body as AsyncIterable<Buffer>) {
        chunks.push(chunk);
        size += chunk.length;
        if (size >= RESPONSE_CAP) break;
      }
      // Leaving the loop early destroys the body: the rest is never read.
      const response = Buffer.concat(chunks).subarray(0, RESPONSE_CAP).toString('utf8');
      const ok = res.statusCode >= 200 && res.statusCode < 300;
      const location = res.headers.location;
      const error = ok
        ? null
        : res.statusCode >= 300 && res.statusCode < 400
          ? `redirect not followed${location ? ` (to ${String(location)})` : ''}`
          : `answered ${res.statusCode}`;
      return done({ ok, status_code: res.statusCode, error, response });
    } catch (e) {
      return done({
        ok: false,
        status_code: null,
        error: describe(e as Parameters<typeof describe>[0], this.opts.timeoutMs),
        response: '',
      });
    }
  }

  async close(): Promise<void> {
    if (this.#client) await (await this.#client).agent.close();
  }
}

function describe(e: Error & { code?: string; cause?: Error & { code?: string } }, timeoutMs: number): string {
  const code = e.code ?? e.cause?.code;
  if (
    e.name === 'TimeoutError' ||
    code === 'UND_ERR_HEADERS_TIMEOUT' ||
    code === 'UND_ERR_BODY_TIMEOUT' ||
    code === 'UND_ERR_CONNECT_TIMEOUT'
  )
    return `timed out after ${timeoutMs} ms`;
  if (code === 'ECONNREFUSED') return 'connection refused';
  if (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET') return 'connection reset';
  return (e.cause?.message ?? e.message) || String(code);
}

// Hand-off to the next server: `direct` resolves the recipient domain's MX through the configured
// resolvers (priority order, implicit MX when there is none, null MX refused), or a smarthost
// (`smtp://` / `smtps://`) takes everything. Connections are pooled per host and STARTTLS is used
// when offered (opportunistic: MX certificates are not checked, as between MTAs). Each recipient
// comes back sent, permanently refused (5xx) or temporarily not (4xx, no connection, timeout).
import { isIP } from 'node:net';
import type { DnsClient } from '../domains/dns.js';
import { SmtpPool, type SmtpError, type SmtpPoolOptions } from './smtp-pool.js';

/**
 * `failed`: a permanent failure of ours (a message that cannot be composed): bounced at once, and
 * never a reason to suppress the recipient.
 */
export type RecipientOutcome = 'sent' | 'permanent' | 'temporary' | 'failed';

export interface RecipientResult {
  address: string;
  outcome: RecipientOutcome;
  /** The server's reply, or why there was none. */
  response: string;
}

export interface DeliveryOptions {
  /** `direct` or an smtp:// / smtps:// URL. */
  outbound: string;
  dns: DnsClient;
  /** Port of direct delivery (25; tests point MX records at a sink on another port). */
  directPort: number;
  /** Name in EHLO. */
  heloName: string;
  timeoutMs: number;
  maxConnectionsPerHost: number;
}

const classify = (code: number | undefined): RecipientOutcome => (code !== undefined && code >= 500 && code < 600 ? 'permanent' : 'temporary');
const reply = (e: SmtpError) => (e.response ?? e.message).replace(/\s+/g, ' ').trim().slice(0, 500);

export class Deliverer {
  #pools = new Map<string, SmtpPool>();

  constructor(private readonly opts: DeliveryOptions) {}

  #pool(key: string, build: () => Omit<SmtpPoolOptions, 'name' | 'timeoutMs' | 'maxConnections' | 'maxMessages' | 'idleMs'>): SmtpPool {
    let p = this.#pools.get(key);
    if (!p) {
      const o = this.opts;
      p = new SmtpPool({ ...build(), name: o.heloName, timeoutMs: o.timeoutMs, maxConnections: o.maxConnectionsPerHost, maxMessages: 1000, idleMs: 30_000 });
      this.#pools.set(key, p);
    }
    return p;
  }

  #smarthost(): SmtpPool {
    return this.#pool('smarthost', () => {
      const u = new URL(this.opts.outbound);
      const secure = u.protocol === 'smtps:';
      return {
        host: u.hostname.replace(/^\[|\]$/g, ''),
        port: Number(u.port || (secure ? 465 : 587)),
        secure,
        opportunisticTLS: false,
        ...(u.username ? { auth: { user: decodeURIComponent(u.username), pass: decodeURIComponent(u.password) } } : {}),
        tls: { rejectUnauthorized: u.searchParams.get('tls') !== 'insecure' },
      };
    });
  }

  #direct(ip: string, mxHost: string): SmtpPool {
    return this.#pool(`${ip}:${this.opts.directPort}`, () => ({
      host: ip,
      port: this.opts.directPort,
      secure: false,
      // Between MTAs: STARTTLS when offered, certificates not checked, plaintext when it is refused.
      opportunisticTLS: true,
      tls: { rejectUnauthorized: false, ...(isIP(mxHost) ? {} : { servername: mxHost }) },
    }));
  }

  /** Where mail for `domain` goes, best first, or why it cannot go anywhere. */
  async routes(domain: string): Promise<{ hosts: Array<{ ip: string; name: string }> } | { fail: RecipientOutcome; why: string }> {
    const { dns } = this.opts;
    const mx = await dns.mx(domain);
    if (!mx.ok) return { fail: 'temporary', why: `MX look-up for ${domain}: ${mx.reason}` };
    const sorted = [...mx.records].sort((a, b) => a.priority - b.priority);
    if (sorted.length === 1 && (sorted[0]!.exchange === '' || sorted[0]!.exchange === '.')) return { fail: 'permanent', why: `${domain} accepts no mail (null MX)` };
    // No MX at all: the domain itself is the mail host (RFC 5321 implicit MX).
    const names = sorted.length ? sorted.map((r) => r.exchange.replace(/\.$/, '')) : [domain];
    const hosts: Array<{ ip: string; name: string }> = [];
    let lastWhy = `${domain} has no mail host`;
    for (const name of names) {
      if (isIP(name)) {
        hosts.push({ ip: name, name });
        continue;
      }
      const a = await dns.addresses(name);
      if (!a.ok) lastWhy = `address look-up for ${name}: ${a.reason}`;
      else for (const ip of a.records) hosts.push({ ip, name });
    }
    return hosts.length ? { hosts } : { fail: 'temporary', why: lastWhy };
  }

  async deliver(domain: string, envelope: { from: string; to: string[] }, raw: Buffer): Promise<RecipientResult[]> {
    const all = (outcome: RecipientOutcome, response: string) => envelope.to.map((address) => ({ address, outcome, response }));
    if (this.opts.outbound !== 'direct') return this.#send(this.#smarthost(), envelope, raw);
    const r = await this.routes(domain);
    if ('fail' in r) return all(r.fail, r.why);
    let last: RecipientResult[] = all('temporary', 'no mail host answered');
    for (const host of r.hosts) {
      last = await this.#send(this.#direct(host.ip, host.name), envelope, raw);
      // Only when this host could not be reached at all is the next one tried.
      if (!last.every((x) => x.outcome === 'temporary' && x.response.startsWith('connection:'))) return last;
    }
    return last;
  }

  async #send(pool: SmtpPool, envelope: { from: string; to: string[] }, raw: Buffer): Promise<RecipientResult[]> {
    try {
      const info = await pool.send(envelope, raw);
      const rejected = new Map(((info as { rejectedErrors?: SmtpError[] }).rejectedErrors ?? []).map((e) => [String(e.recipient).toLowerCase(), e]));
      return envelope.to.map((address) => {
        const e = rejected.get(address.toLowerCase());
        return e ? { address, outcome: classify(e.responseCode), response: reply(e) } : { address, outcome: 'sent' as const, response: String(info.response ?? '250 OK') };
      });
    } catch (err) {
      const e = err as SmtpError;
      if (e.rejectedErrors?.length) {
        const byRcpt = new Map(e.rejectedErrors.map((x) => [String(x.recipient).toLowerCase(), x]));
        return envelope.to.map((address) => {
          const x = byRcpt.get(address.toLowerCase());
          return { address, outcome: x ? classify(x.responseCode) : 'temporary', response: x ? reply(x) : reply(e) };
        });
      }
      if (e.responseCode === undefined) return envelope.to.map((address) => ({ address, outcome: 'temporary' as const, response: `connection: ${e.code ?? ''} ${e.message}`.replace(/\s+/g, ' ').trim() }));
      return envelope.to.map((address) => ({ address, outcome: classify(e.responseCode), response: reply(e) }));
    }
  }

  close(): void {
    for (const p of this.#pools.values()) p.close();
    this.#pools.clear();
  }
}

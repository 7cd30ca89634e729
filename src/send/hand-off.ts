// Hand-off to the next server: `direct` resolves the recipient domain's MX through the configured
// resolvers (priority order, implicit MX when there is none, null MX refused), or a smarthost
// (`smtp://` / `smtps://`) takes everything. Connections are pooled per host and STARTTLS is used
// when offered (opportunistic: MX certificates are not checked, as between MTAs). Each recipient
// comes back sent, permanently refused (5xx) or temporarily not (4xx, no connection, timeout).
import { isIP } from 'node:net';
import type { DnsClient } from '../domains/dns.js';
import { HandOffAborted, SmtpPool, type SmtpError, type SmtpPoolOptions } from './smtp-pool.js';
import { classifyReply, stageOf, type RecipientOutcome, type Stage } from '../mail/bounce-class.js';

/**
 * `permanent`: the mailbox or domain is bad: bounced and suppressed. `rejected`: the message was
 * refused (policy, content, sender): bounced, nobody suppressed. `failed`: a permanent failure of
 * ours (a message that cannot be composed, its domain gone): bounced, nobody suppressed.
 * `temporary`: tried again later. `hop`: our own next hop failed (the smarthost refused our login or
 * sender, TLS to it failed): tried again later, and loudly (bounce-class.ts).
 */
export type { RecipientOutcome } from '../mail/bounce-class.js';

/** A transaction's envelope; `bulk` marks list mail (broadcasts, sequences). */
export interface Envelope {
  from: string;
  to: string[];
  bulk?: boolean;
}

export interface RecipientResult {
  address: string;
  outcome: RecipientOutcome;
  /** The server's reply, or why there was none. */
  response: string;
  /** What kind of refusal it was (bounce-class.ts), kept as evidence. */
  class?: string;
  /** Where in the session the refusal came: before RCPT it was about the connection or the sender, not the recipient. */
  stage?: Stage;
}

/** One host tried for one transaction (the transcript `svc messages explain` shows). */
export interface HostTry {
  host: string;
  ip: string | null;
  /** Whether the session ran over TLS; null when it failed before that was known. */
  tls: boolean | null;
  ms: number;
  /** What this host answered the transaction (its first recipient's result), when it was not the last tried. */
  reply?: string;
  outcome?: RecipientOutcome;
}

export interface HandOffOptions {
  /** `direct` or an smtp:// / smtps:// URL. */
  outbound: string;
  dns: DnsClient;
  /** Port of direct delivery (25; tests point MX records at a sink on another port). */
  directPort: number;
  /** Name in EHLO. */
  heloName: string;
  timeoutMs: number;
  maxConnectionsPerHost: number;
  /** Recipients in one SMTP transaction at most (Gmail takes 100); the rest go in further ones. */
  maxRecipients: number;
  /** PEM of a private CA the smarthost's certificate is checked against (--outbound-ca). */
  ca?: string;
}

/** A server's "too many recipients in this transaction": the rest go in a new one at once. */
const tooMany = (r: RecipientResult) =>
  r.outcome === 'temporary' && /^452\b/.test(r.response) && /4\.5\.3|too many recipients/i.test(r.response);

const reply = (e: SmtpError) => (e.response ?? e.message).replace(/\s+/g, ' ').trim().slice(0, 500);

type Route = 'direct' | 'smarthost';

/** One recipient's result from an SMTP error, classified (bounce-class.ts). */
function refused(address: string, e: SmtpError, route: Route, sender: string): RecipientResult {
  const stage = stageOf(e);
  const c = classifyReply({ code: e.responseCode, text: reply(e), stage, sender }, route);
  const response = e.responseCode === undefined ? `connection: ${e.code ?? ''} ${e.message}`.replace(/\s+/g, ' ').trim() : reply(e);
  return { address, outcome: c.outcome, class: c.class, response, stage };
}

export class HandOff {
  #pools = new Map<string, SmtpPool>();
  #aborted = false;

  constructor(private opts: HandOffOptions) {}

  #pool(key: string, build: () => Omit<SmtpPoolOptions, 'name' | 'timeoutMs' | 'maxConnections' | 'maxMessages' | 'idleMs'>): SmtpPool {
    let p = this.#pools.get(key);
    if (!p) {
      const o = this.opts;
      p = new SmtpPool({
        ...build(),
        name: o.heloName,
        timeoutMs: o.timeoutMs,
        maxConnections: o.maxConnectionsPerHost,
        maxMessages: 1000,
        idleMs: 30_000,
      });
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
        // Checked (against the system CAs, or --outbound-ca's), unless the URL says ?tls=insecure.
        tls: { rejectUnauthorized: u.searchParams.get('tls') !== 'insecure', ...(this.opts.ca ? { ca: this.opts.ca } : {}) },
      };
    });
  }

  /** `plain`: no STARTTLS at all, for a host whose TLS handshake failed (as Postfix's `may`). */
  #direct(ip: string, mxHost: string, plain = false): SmtpPool {
    return this.#pool(`${ip}:${this.opts.directPort}${plain ? ':plain' : ''}`, () => ({
      host: ip,
      port: this.opts.directPort,
      secure: false,
      // Between MTAs: STARTTLS when offered, certificates not checked, plaintext when it is refused.
      opportunisticTLS: true,
      ignoreTLS: plain,
      tls: { rejectUnauthorized: false, ...(isIP(mxHost) ? {} : { servername: mxHost }) },
    }));
  }

  /** Where mail for `domain` goes, best first, or why it cannot go anywhere. */
  async routes(
    domain: string,
  ): Promise<{ hosts: Array<{ ip: string; name: string }> } | { fail: RecipientOutcome; why: string; class: string }> {
    const { dns } = this.opts;
    const mx = await dns.mx(domain);
    if (!mx.ok) return { fail: 'temporary', why: `MX look-up for ${domain}: ${mx.reason}`, class: 'dns' };
    // A domain that does not exist at all will not exist on the next try either (RFC 5321 §5.1).
    if (mx.nxdomain) return { fail: 'permanent', why: `${domain} does not exist (NXDOMAIN)`, class: 'bad-domain' };
    const sorted = [...mx.records].sort((a, b) => a.priority - b.priority);
    if (sorted.length === 1 && (sorted[0]!.exchange === '' || sorted[0]!.exchange === '.'))
      return { fail: 'permanent', why: `${domain} accepts no mail (null MX)`, class: 'bad-domain' };
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
      // A domain that exists with neither MX nor address records (NODATA) takes no mail, now or on
      // the next try: bounced at once, as NXDOMAIN and a null MX are (Postfix does the same).
      else if (!sorted.length && !a.records.length)
        return { fail: 'permanent', why: `${domain} has no MX and no address records (NODATA)`, class: 'bad-domain' };
      else for (const ip of a.records) hosts.push({ ip, name });
    }
    return hosts.length ? { hosts } : { fail: 'temporary', why: lastWhy, class: 'dns' };
  }

  /**
   * Hands one message to the recipients of one domain, at most maxRecipients per transaction; those
   * a server defers with 452 4.5.3 (its own cap) go again at once in a new transaction, as long as
   * each transaction takes some.
   */
  /** `envelope.bulk`: list mail, which waits behind other mail for a connection. */
  async deliver(domain: string, envelope: Envelope, raw: Buffer, trace: HostTry[] = []): Promise<RecipientResult[]> {
    const done = new Map<string, RecipientResult>();
    let pending = [...envelope.to];
    while (pending.length) {
      const batch = pending.slice(0, this.opts.maxRecipients);
      pending = pending.slice(batch.length);
      const results = await this.#transaction(domain, { ...envelope, to: batch }, raw, trace);
      const again = results.filter(tooMany);
      const progress = again.length < batch.length;
      for (const r of results) if (!progress || !tooMany(r)) done.set(r.address, r);
      if (progress && again.length) pending = [...again.map((r) => r.address), ...pending];
    }
    return envelope.to.map((address) => done.get(address)!);
  }

  async #transaction(domain: string, envelope: { from: string; to: string[] }, raw: Buffer, trace: HostTry[]): Promise<RecipientResult[]> {
    const all = (outcome: RecipientOutcome, response: string, klass: string) =>
      envelope.to.map((address) => ({ address, outcome, response, class: klass }));
    if (this.opts.outbound !== 'direct')
      return this.#send(this.#smarthost(), envelope, raw, 'smarthost', trace, { host: new URL(this.opts.outbound).hostname, ip: null });
    const r = await this.routes(domain);
    if ('fail' in r) return all(r.fail, r.why, r.class);
    let last: RecipientResult[] = all('temporary', 'no mail host answered', 'connection');
    for (const host of r.hosts) {
      last = await this.#send(this.#direct(host.ip, host.name), envelope, raw, 'direct', trace, { host: host.name, ip: host.ip });
      // A STARTTLS handshake that fails (an MX with only old TLS): at once again in plaintext.
      if (last.every((x) => x.outcome === 'temporary' && x.class === 'tls'))
        last = await this.#send(this.#direct(host.ip, host.name, true), envelope, raw, 'direct', trace, { host: host.name, ip: host.ip });
      // A host that could not take any of it now (no connection, 421, another 4xx) passes the
      // message on to the next MX in the same attempt (RFC 5321 §5.1).
      if (!last.every((x) => x.outcome === 'temporary' && x.class !== 'mailbox-full')) return last;
    }
    return last;
  }

  async #send(
    pool: SmtpPool,
    envelope: { from: string; to: string[] },
    raw: Buffer,
    route: Route,
    trace: HostTry[],
    to: { host: string; ip: string | null },
  ): Promise<RecipientResult[]> {
    const results = await this.#sendOnce(pool, envelope, raw, route, trace, to);
    const tried = trace.at(-1)!;
    tried.reply = results[0]?.response;
    tried.outcome = results[0]?.outcome;
    return results;
  }

  async #sendOnce(
    pool: SmtpPool,
    envelope: { from: string; to: string[] },
    raw: Buffer,
    route: Route,
    trace: HostTry[],
    to: { host: string; ip: string | null },
  ): Promise<RecipientResult[]> {
    if (this.#aborted) throw new HandOffAborted();
    const t0 = Date.now();
    const tried: HostTry = { ...to, tls: null, ms: 0 };
    trace.push(tried);
    try {
      // Bulk mail waits behind other mail for a connection (smtp-pool.ts).
      const info = await pool.send({ from: envelope.from, to: envelope.to }, raw, !(envelope as Envelope).bulk);
      tried.ms = Date.now() - t0;
      tried.tls = (info as { tls?: boolean }).tls ?? null;
      tried.ip ??= (info as { ip?: string }).ip ?? null;
      const rejected = new Map(
        ((info as { rejectedErrors?: SmtpError[] }).rejectedErrors ?? []).map((e) => [String(e.recipient).toLowerCase(), e]),
      );
      return envelope.to.map((address) => {
        const e = rejected.get(address.toLowerCase());
        return e
          ? refused(address, e, route, envelope.from)
          : { address, outcome: 'sent' as const, response: String(info.response ?? '250 OK') };
      });
    } catch (err) {
      tried.ms = Date.now() - t0;
      // Cut short by a stop: not the server's answer, and no other MX is tried.
      if (this.#aborted) throw err instanceof HandOffAborted ? err : new HandOffAborted();
      const e = err as SmtpError;
      if (e.rejectedErrors?.length) {
        const byRcpt = new Map(e.rejectedErrors.map((x) => [String(x.recipient).toLowerCase(), x]));
        return envelope.to.map((address) => {
          const x = byRcpt.get(address.toLowerCase());
          return x ? refused(address, x, route, envelope.from) : refused(address, e, route, envelope.from);
        });
      }
      return envelope.to.map((address) => refused(address, e, route, envelope.from));
    }
  }

  /**
   * Another outbound route from now on (SIGHUP re-read the config): the smarthost's pool is closed
   * (a hand-off in flight on it finishes), the next hand-off opens the new route.
   */
  reroute(outbound: string, ca: string | undefined): void {
    this.opts = { ...this.opts, outbound, ...(ca ? { ca } : { ca: undefined }) };
    this.#pools.get('smarthost')?.close();
    this.#pools.delete('smarthost');
  }

  close(): void {
    for (const p of this.#pools.values()) p.close();
    this.#pools.clear();
  }

  /** Ends every session now (a stop whose grace is over); deliver() then throws HandOffAborted. */
  abort(): void {
    this.#aborted = true;
    for (const p of this.#pools.values()) p.abort();
  }
}

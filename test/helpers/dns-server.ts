// A real DNS server on loopback for tests and benchmarks (UDP and TCP on one port), serving zones
// from fixtures/dns/*.zone. Zone lines: `NAME TYPE VALUE` under `$ORIGIN`, @ for the origin; TXT
// values are quoted strings (several = one record split in pieces); `NAME SERVFAIL` answers
// SERVFAIL and `NAME SILENT` never answers (a timeout). {{var}} is filled per origin, so a test can
// publish the token and key svc just made; a line whose {{vars}} are not set yet is not served. A string over 255 bytes is split as providers do.
import { createSocket, type Socket as UdpSocket } from 'node:dgram';
import { createServer, type Server, type Socket } from 'node:net';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import dnsPacket from 'dns-packet';
import { fromRoot } from './root.js';

export const ZONES_DIR = fromRoot('fixtures/dns') + '/';

interface ZoneLine {
  name: string;
  type: string;
  value: string;
}

function parseZone(text: string): Map<string, ZoneLine[]> {
  const out = new Map<string, ZoneLine[]>();
  let origin = '';
  for (const raw of text.split('\n')) {
    const line = raw.replace(/(^|\s)#.*$/, '').trim();
    if (!line) continue;
    const m = /^\$ORIGIN\s+(\S+)$/.exec(line);
    if (m) {
      origin = m[1]!.toLowerCase().replace(/\.$/, '');
      out.set(origin, out.get(origin) ?? []);
      continue;
    }
    const parts = /^(\S+)\s+(\S+)\s*(.*)$/.exec(line);
    if (!parts) throw new Error(`bad zone line: ${line}`);
    const name = parts[1] === '@' ? origin : `${parts[1]}.${origin}`.toLowerCase();
    out.get(origin)!.push({ name, type: parts[2]!.toUpperCase(), value: parts[3]! });
  }
  return out;
}

const quoted = (v: string) => [...v.matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((m) => m[1]!.replace(/\\(.)/g, '$1'));
const split255 = (s: string) => (s.length <= 255 ? [s] : (s.match(/[\s\S]{1,255}/g) ?? []));

export class FixtureDns {
  readonly zones = new Map<string, ZoneLine[]>();
  readonly vars = new Map<string, Record<string, string>>();
  #udp!: UdpSocket;
  #tcp!: Server;
  #tcpSockets = new Set<Socket>();
  port = 0;

  /** Loads every zone file (or the ones named) from fixtures/dns. */
  load(files: string[] = readdirSync(ZONES_DIR).filter((f) => f.endsWith('.zone'))): this {
    for (const f of files) for (const [origin, lines] of parseZone(readFileSync(join(ZONES_DIR, f), 'utf8'))) this.zones.set(origin, lines);
    return this;
  }

  /** Adds or replaces a zone from text (benchmarks make many). */
  zone(text: string): this {
    for (const [origin, lines] of parseZone(text)) this.zones.set(origin, lines);
    return this;
  }

  setVars(origin: string, vars: Record<string, string>): void {
    this.vars.set(origin, { ...this.vars.get(origin), ...vars });
  }

  get server(): string {
    return `127.0.0.1:${this.port}`;
  }

  /** A line whose placeholders are not all set is not published (yet): null. */
  #render(origin: string, text: string): string | null {
    const vars = this.vars.get(origin) ?? {};
    let missing = false;
    const out = text.replace(/\{\{(\w+)\}\}/g, (_m, k: string) => vars[k] ?? ((missing = true), ''));
    return missing ? null : out;
  }

  /** The answer to one question, or null for no answer at all (SILENT). */
  answer(query: dnsPacket.Packet): Buffer | null {
    const q = query.questions?.[0];
    // dns-packet encodes the response code only as the low bits of flags.
    const RCODE = { FORMERR: 1, SERVFAIL: 2, NXDOMAIN: 3 } as const;
    const fail = (rcode: keyof typeof RCODE) => dnsPacket.encode({ ...reply, flags: (reply.flags ?? 0) | RCODE[rcode] });
    const reply: dnsPacket.Packet = {
      id: query.id,
      type: 'response',
      flags: dnsPacket.RECURSION_DESIRED | dnsPacket.RECURSION_AVAILABLE | dnsPacket.AUTHORITATIVE_ANSWER,
      questions: query.questions ?? [],
      answers: [],
    };
    if (!q) return fail('FORMERR');
    const name = q.name.toLowerCase().replace(/\.$/, '');
    const origin = [...this.zones.keys()].filter((o) => name === o || name.endsWith('.' + o)).sort((a, b) => b.length - a.length)[0];
    if (origin === undefined) return fail('NXDOMAIN');
    const lines = this.zones.get(origin)!.filter((l) => l.name === name);
    if (lines.some((l) => l.type === 'SILENT')) return null;
    if (lines.some((l) => l.type === 'SERVFAIL')) return fail('SERVFAIL');
    if (lines.length === 0) return fail('NXDOMAIN');
    const answers: dnsPacket.Answer[] = [];
    // A CNAME is followed as a recursive resolver would: the alias, then the target's records.
    const cname = lines.find((l) => l.type === 'CNAME');
    if (cname && q.type !== 'CNAME') {
      const target = this.#render(origin, cname.value)?.replace(/\.$/, '');
      if (target) {
        answers.push({ type: 'CNAME', name: q.name, ttl: 60, class: 'IN', data: target });
        const inner = this.answer({ ...query, questions: [{ ...q, name: target }] });
        if (inner) answers.push(...(dnsPacket.decode(inner).answers ?? []));
      }
      return dnsPacket.encode({ ...reply, answers });
    }
    for (const l of lines.filter((x) => x.type === q.type)) {
      const value = this.#render(origin, l.value);
      if (value === null) continue;
      if (l.type === 'TXT') answers.push({ type: 'TXT', name: q.name, ttl: 60, class: 'IN', data: quoted(value).flatMap(split255) });
      else if (l.type === 'MX') {
        const [prio, exchange] = value.split(/\s+/);
        answers.push({
          type: 'MX',
          name: q.name,
          ttl: 60,
          class: 'IN',
          data: { preference: Number(prio), exchange: exchange === '.' ? '' : exchange! },
        });
      } else if (l.type === 'A') answers.push({ type: 'A', name: q.name, ttl: 60, class: 'IN', data: value });
      else if (l.type === 'PTR') answers.push({ type: 'PTR', name: q.name, ttl: 60, class: 'IN', data: value.replace(/\.$/, '') });
    }
    return dnsPacket.encode({ ...reply, answers });
  }

  async start(): Promise<this> {
    for (let attempt = 0; attempt < 20; attempt++) {
      const udp = createSocket('udp4');
      await new Promise<void>((r) => udp.bind(0, '127.0.0.1', () => r()));
      const port = udp.address().port;
      const tcp = createServer((s) => this.#onTcp(s));
      const ok = await new Promise<boolean>((r) => {
        tcp.once('error', () => r(false));
        tcp.listen(port, '127.0.0.1', () => r(true));
      });
      if (!ok) {
        udp.close();
        continue;
      }
      udp.on('message', (msg, rinfo) => {
        let q: dnsPacket.Packet;
        try {
          q = dnsPacket.decode(msg);
        } catch {
          return;
        }
        const out = this.answer(q);
        if (out) udp.send(out, rinfo.port, rinfo.address);
      });
      this.#udp = udp;
      this.#tcp = tcp;
      this.port = port;
      return this;
    }
    throw new Error('no free port for the fixture DNS server');
  }

  #onTcp(s: Socket): void {
    this.#tcpSockets.add(s);
    s.on('close', () => this.#tcpSockets.delete(s));
    s.on('error', () => {});
    let buf = Buffer.alloc(0);
    s.on('data', (d) => {
      buf = Buffer.concat([buf, d]);
      while (buf.length >= 2 && buf.length >= 2 + buf.readUInt16BE(0)) {
        const len = buf.readUInt16BE(0);
        const msg = buf.subarray(2, 2 + len);
        buf = buf.subarray(2 + len);
        const out = this.answer(dnsPacket.decode(msg));
        if (out) {
          const framed = Buffer.alloc(2 + out.length);
          framed.writeUInt16BE(out.length, 0);
          out.copy(framed, 2);
          s.write(framed);
        }
      }
    });
  }

  #stopped = false;

  /** Stops answering (a test may stop it early to see a DNS outage; the second call does nothing). */
  async stop(): Promise<void> {
    if (this.#stopped) return;
    this.#stopped = true;
    for (const s of this.#tcpSockets) s.destroy();
    await Promise.all([new Promise<void>((r) => this.#udp.close(() => r())), new Promise<void>((r) => this.#tcp.close(() => r()))]);
  }
}

export async function fixtureDns(t: { after(fn: () => unknown): void }): Promise<FixtureDns> {
  const dns = await new FixtureDns().load().start();
  t.after(() => dns.stop());
  return dns;
}

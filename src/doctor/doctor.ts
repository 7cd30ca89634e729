// `svc doctor` (docs/operating.md "svc doctor"): checks an installation and explains each problem
// with its fix. Nothing is changed: domains are checked as `svc domains verify` would, without
// storing the statuses. A check that passes is `pass`; one to look at is `warn`; one that stops
// mail is `fail`; one that was not run (a tool missing, a probe not asked for) is `skip`.
// Long because runDoctor holds every check in the order the report prints them, each a few lines
// over the probes above it, so that the report and the code read alike.
import { X509Certificate } from 'node:crypto';
import { execFile } from 'node:child_process';
import { connect } from 'node:net';
import { networkInterfaces } from 'node:os';
import type { Config } from '../config.js';
import type { Clock } from '../clock.js';
import type { StoreSlice } from '../store/types.js';
import type { DnsClient } from '../domains/dns.js';
import { checkDomain } from '../domains/check.js';
import type { ServiceNames } from '../domains/records.js';

export type CheckStatus = 'pass' | 'warn' | 'fail' | 'skip';

export interface Check {
  name: string;
  status: CheckStatus;
  detail: string;
  /** What to do about it; null when there is nothing to do. */
  fix: string | null;
}

export interface DoctorDeps {
  config: Config;
  clock: Clock;
  /** Null when it could not be opened (`storeProblem` says why; the checks that need it are skipped). */
  store: StoreSlice<'domains' | 'tls'> | null;
  dns: DnsClient;
  /** The store's own description, checked by opening it (the caller did). */
  storeDetail: string;
  storeProblem?: { detail: string; fix: string };
}

export interface DoctorOptions {
  /** `--probe-domain D`: connect to one MX of D on the delivery port (never done unless asked). */
  probeDomain?: string;
  probeTimeoutMs?: number;
}

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|::1|\[::1\]|localhost|0\.0\.0\.0|\[::\])$/i;
const ok = (name: string, detail: string): Check => ({ name, status: 'pass', detail, fix: null });
const local = () =>
  new Set(
    Object.values(networkInterfaces())
      .flat()
      .flatMap((i) => (i ? [i.address] : [])),
  );

/** The SMTP greeting of host:port, or why there was none. */
function greeting(host: string, port: number, ms: number): Promise<{ ok: true; line: string } | { ok: false; why: string }> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    let got = '';
    const done = (r: { ok: true; line: string } | { ok: false; why: string }) => {
      socket.destroy();
      resolve(r);
    };
    socket.setTimeout(ms, () => done({ ok: false, why: `no answer in ${ms / 1000} s` }));
    socket.on('error', (e: NodeJS.ErrnoException) => done({ ok: false, why: e.code ?? e.message }));
    // A peer that hangs up before a whole greeting line is a failure now, not after the timeout.
    socket.on('close', () =>
      done({ ok: false, why: got ? `it hung up after ${JSON.stringify(got.slice(0, 200))}` : 'it hung up without a greeting' }),
    );
    socket.on('data', (d) => {
      got += d.toString('latin1');
      const line = got.split('\r\n')[0]!;
      if (got.includes('\r\n'))
        done(/^220[ -]/.test(line) ? { ok: true, line: line.slice(0, 200) } : { ok: false, why: `it answered ${line.slice(0, 200)}` });
    });
  });
}

function ntpSynchronized(): Promise<'yes' | 'no' | null> {
  return new Promise((resolve) => {
    execFile('timedatectl', ['show', '-p', 'NTPSynchronized', '--value'], { timeout: 5000 }, (err, stdout) => {
      if (err) return resolve(null);
      const v = stdout.trim();
      resolve(v === 'yes' ? 'yes' : v === 'no' ? 'no' : null);
    });
  });
}

export async function runDoctor(deps: DoctorDeps, opts: DoctorOptions = {}): Promise<Check[]> {
  const { config, dns, clock, store } = deps;
  const checks: Check[] = [deps.storeProblem ? { name: 'store', status: 'fail', ...deps.storeProblem } : ok('store', deps.storeDetail)];

  // The public names.
  const base = new URL(config.baseUrl);
  const basePort = Number(base.port || (base.protocol === 'https:' ? 443 : 80));
  // A base URL straight at this host (no proxy in front) must name the port the API listens on: a
  // literal one left behind by a later change of api-port makes every link lead nowhere.
  if ((LOOPBACK.test(base.hostname) || base.hostname === config.host) && config.apiPort !== 0 && basePort !== config.apiPort) {
    checks.push({
      name: 'base_url',
      status: 'warn',
      detail: `${config.baseUrl} points at port ${basePort}, but the API listens on port ${config.apiPort}: tracking, unsubscribe and sign-in links lead nowhere`,
      fix: `remove base-url from the config file (it is then derived from host and api-port), or set it to the URL of a proxy that forwards to port ${config.apiPort}`,
    });
  } else if (LOOPBACK.test(base.hostname)) {
    checks.push({
      name: 'base_url',
      status: 'warn',
      detail: `${config.baseUrl} is a loopback URL: tracking, unsubscribe and sign-in links reach nobody but this machine`,
      fix: 'set base-url in the config file (or --base-url) to the public https:// URL of a TLS proxy in front of the API port (contrib/Caddyfile)',
    });
  } else if (base.protocol !== 'https:') {
    checks.push({
      name: 'base_url',
      status: 'warn',
      detail: `${config.baseUrl} is plain http: links and the web app's sign-in travel unencrypted`,
      fix: 'put a TLS proxy in front of the API port (contrib/Caddyfile) and set base-url to its https:// URL',
    });
  } else checks.push(ok('base_url', config.baseUrl));

  if (config.serviceDomain === 'svc.localhost') {
    checks.push({
      name: 'service_domain',
      status: 'warn',
      detail: 'the service domain is svc.localhost, which no customer can publish an SPF include for',
      fix: 'set service-domain in the config file to a domain you control (e.g. mail.example.com)',
    });
  } else checks.push(ok('service_domain', config.serviceDomain));

  const spfName = `_spf.${config.serviceDomain}`;
  const spf = await dns.txt(spfName);
  const spfRecord = spf.ok ? spf.records.find((r) => /^v=spf1(\s|$)/i.test(r)) : undefined;
  if (!spf.ok)
    checks.push({
      name: 'spf_include',
      status: 'fail',
      detail: `${spfName}: ${spf.reason}`,
      fix: 'check --dns-server and the DNS of the service domain',
    });
  else if (!spfRecord)
    checks.push({
      name: 'spf_include',
      status: 'fail',
      detail: `${spfName} has no SPF record: the include:${spfName} your customers publish authorises nothing`,
      fix: `publish ${spfName} TXT "v=spf1 ip4:SENDING_IP -all" (your sending addresses, or your smarthost's include)`,
    });
  else checks.push(ok('spf_include', `${spfName}: ${spfRecord}`));

  const here = local();
  const mx = await dns.addresses(config.mxHost);
  if (!mx.ok)
    checks.push({
      name: 'mx_host',
      status: 'fail',
      detail: `${config.mxHost}: ${mx.reason}`,
      fix: 'check --dns-server and the DNS of the MX host',
    });
  else if (!mx.records.length)
    checks.push({
      name: 'mx_host',
      status: 'fail',
      detail: `${config.mxHost} has no address: replies and bounces cannot reach the MX`,
      fix: `publish an A (and AAAA) record for ${config.mxHost} with this host's public address`,
    });
  else if (!mx.records.some((a) => here.has(a)))
    checks.push({
      name: 'mx_host',
      status: 'warn',
      detail: `${config.mxHost} resolves to ${mx.records.join(', ')}, which is no address of this machine`,
      fix: `fine behind NAT or a load balancer that forwards port 25 to --mx-port; otherwise point ${config.mxHost} at this host`,
    });
  else checks.push(ok('mx_host', `${config.mxHost} → ${mx.records.join(', ')} (this machine)`));

  // The HELO name: forward to an address, and that address back to the name (receivers check both).
  const helo = await dns.addresses(config.heloName);
  if (!helo.ok || !helo.records.length) {
    checks.push({
      name: 'helo_name',
      status: 'fail',
      detail: `${config.heloName} ${helo.ok ? 'has no address' : `: ${helo.reason}`}`,
      fix: `publish an A record for ${config.heloName} with the sending address, or set helo-name to a name that has one`,
    });
  } else if (!dns.reverse) {
    checks.push({
      name: 'helo_name',
      status: 'skip',
      detail: `${config.heloName} → ${helo.records.join(', ')}; reverse DNS not checked`,
      fix: null,
    });
  } else {
    const back = await Promise.all(helo.records.map(async (ip) => ({ ip, names: await dns.reverse!(ip) })));
    const matching = back.filter((b) => b.names.ok && b.names.records.some((n) => n.toLowerCase().replace(/\.$/, '') === config.heloName));
    if (matching.length === back.length)
      checks.push(ok('helo_name', `${config.heloName} → ${helo.records.join(', ')} → ${config.heloName}`));
    else {
      const wrong = back
        .filter((b) => !matching.includes(b))
        .map((b) => `${b.ip} → ${b.names.ok ? b.names.records.join(', ') || 'no PTR' : b.names.reason}`);
      checks.push({
        name: 'helo_name',
        status: 'warn',
        detail: `reverse DNS does not name ${config.heloName}: ${wrong.join('; ')}`,
        fix: `ask whoever owns the address (your hosting provider) to set its PTR record to ${config.heloName}; receivers distrust mail whose HELO and reverse DNS disagree`,
      });
    }
  }

  // The STARTTLS certificate of relay and MX.
  let pem: string | null = null;
  let source = '';
  if (config.tlsCert) {
    try {
      const { readFile } = await import('node:fs/promises');
      pem = await readFile(config.tlsCert, 'utf8');
      source = config.tlsCert;
    } catch (e) {
      checks.push({
        name: 'tls_certificate',
        status: 'fail',
        detail: `cannot read ${config.tlsCert}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`,
        fix: 'fix --tls-cert (the daemon would not start)',
      });
    }
  } else if (!store) {
    checks.push({ name: 'tls_certificate', status: 'skip', detail: 'the store could not be read', fix: null });
  } else {
    const kept = await store.tls.get();
    if (kept) {
      pem = kept.cert;
      source = 'the self-signed certificate kept in the store';
    } else
      checks.push({
        name: 'tls_certificate',
        status: 'skip',
        detail: 'none yet: svc serve makes a self-signed one at its first start',
        fix: null,
      });
  }
  if (pem) {
    try {
      const cert = new X509Certificate(pem);
      const days = Math.floor((Date.parse(cert.validTo) - clock.now().getTime()) / 86_400_000);
      const selfSigned = cert.issuer === cert.subject;
      const what = `${source}: ${cert.subject.replace(/\n/g, ', ')}, valid until ${new Date(cert.validTo).toISOString().slice(0, 10)} (${days} days)${selfSigned ? ', self-signed (MTAs use it for STARTTLS; clients that verify certificates refuse it)' : ''}`;
      if (days < 0)
        checks.push({
          name: 'tls_certificate',
          status: 'fail',
          detail: what,
          fix: 'renew the certificate, then systemctl reload svc (SIGHUP re-reads it)',
        });
      else if (days < 14)
        checks.push({
          name: 'tls_certificate',
          status: 'warn',
          detail: what,
          fix: 'renew the certificate soon, then systemctl reload svc (SIGHUP re-reads it)',
        });
      else checks.push(ok('tls_certificate', what));
    } catch (e) {
      checks.push({
        name: 'tls_certificate',
        status: 'fail',
        detail: `${source} is not a PEM certificate: ${(e as Error).message}`,
        fix: 'give --tls-cert a PEM certificate',
      });
    }
  }

  // Every domain's five records, as svc domains verify checks them (nothing stored).
  const names: ServiceNames = { serviceDomain: config.serviceDomain, mxHost: config.mxHost };
  const at = clock.now().toISOString();
  if (!store) checks.push({ name: 'domains', status: 'skip', detail: 'the store could not be read', fix: null });
  for (const d of store ? await store.domains.listAll() : []) {
    const r = await checkDomain(d, dns, names, false, at);
    const bad = r.records.filter((x) => x.status !== 'Verified' && x.status !== 'Recommended');
    if (!bad.length)
      checks.push(
        ok(
          `domain ${d.domain}`,
          `all five records check out${r.records.some((x) => x.status === 'Recommended') ? ' (with a recommendation: svc domains show)' : ''}`,
        ),
      );
    else
      checks.push({
        name: `domain ${d.domain}`,
        status: d.status === 'verified' ? 'fail' : 'warn',
        detail: `${d.status}; ${bad.map((x) => `${x.purpose} ${x.status}${x.note ? ` (${x.note})` : ''}`).join('; ')}`,
        fix: `publish the records of svc domains records ${d.domain}, then svc domains verify ${d.domain}`,
      });
  }

  // The clock: retries, quotas and leases are timed by it.
  const synced = await ntpSynchronized();
  if (synced === 'yes') checks.push(ok('clock', `synchronised (NTP); now ${clock.now().toISOString()}`));
  else if (synced === 'no')
    checks.push({
      name: 'clock',
      status: 'warn',
      detail: `not synchronised: ${clock.now().toISOString()} may be off`,
      fix: 'timedatectl set-ntp true (or run chrony); quota windows, retries and daemons sharing a database rely on the time',
    });
  else
    checks.push({
      name: 'clock',
      status: 'skip',
      detail: `timedatectl is not available here; now ${clock.now().toISOString()}`,
      fix: null,
    });

  // Outbound: the smarthost greets, or (asked for) port 25 of a real MX.
  if (config.outbound !== 'direct') {
    const u = new URL(config.outbound);
    const port = Number(u.port || (u.protocol === 'smtps:' ? 465 : 587));
    if (u.protocol === 'smtps:')
      checks.push({
        name: 'outbound',
        status: 'skip',
        detail: `smarthost ${u.hostname}:${port} speaks TLS from the start; not probed`,
        fix: null,
      });
    else {
      const g = await greeting(u.hostname.replace(/^\[|\]$/g, ''), port, opts.probeTimeoutMs ?? 10_000);
      checks.push(
        g.ok
          ? ok('outbound', `smarthost ${u.hostname}:${port} greets: ${g.line}`)
          : {
              name: 'outbound',
              status: 'fail',
              detail: `smarthost ${u.hostname}:${port}: ${g.why}`,
              fix: 'check --outbound (host, port) and that this machine may reach it',
            },
      );
    }
  } else if (!opts.probeDomain) {
    checks.push({
      name: 'outbound',
      status: 'skip',
      detail: 'direct delivery; port 25 not probed (svc doctor --probe-domain example.com connects to one of its MX hosts)',
      fix: null,
    });
  } else {
    const m = await dns.mx(opts.probeDomain);
    const target = m.ok ? m.records.sort((a, b) => a.priority - b.priority)[0]?.exchange : undefined;
    if (!target)
      checks.push({
        name: 'outbound',
        status: 'fail',
        detail: `${opts.probeDomain} has no MX to probe${m.ok ? '' : ` (${m.reason})`}`,
        fix: 'name a domain that receives mail',
      });
    else {
      // Through the configured resolvers, as delivery looks it up.
      const addr = await dns.addresses(target);
      const ip = addr.ok ? addr.records[0] : undefined;
      const g = ip
        ? await greeting(ip, config.directPort, opts.probeTimeoutMs ?? 10_000)
        : { ok: false as const, why: `${target} has no address${addr.ok ? '' : ` (${addr.reason})`}` };
      checks.push(
        g.ok
          ? ok('outbound', `${target}:${config.directPort} (MX of ${opts.probeDomain}) greets: ${g.line}`)
          : {
              name: 'outbound',
              status: 'fail',
              detail: `${target}:${config.directPort} (MX of ${opts.probeDomain}): ${g.why}`,
              fix: 'outbound port 25 is often blocked by hosting providers: ask them to open it, or send through a smarthost (--outbound smtp://...)',
            },
      );
    }
  }
  return checks;
}

/** CONTRACT.md: 0 all good, 3 something needs attention. */
export const doctorExit = (checks: Check[]): number => (checks.some((c) => c.status === 'warn' || c.status === 'fail') ? 3 : 0);

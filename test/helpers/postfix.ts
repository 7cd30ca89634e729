// A private Postfix instance for tests that want a real MTA as svc's next hop: its own config and
// queue in a temporary directory, an smtpd on one loopback port (nothing on port 25), relaying
// everything to `relay` and mail for `routes` domains to their ports (the way a bounce finds our
// MX), never asking DNS. Needs Debian's postfix package and root (Postfix's master starts as root
// and drops to the postfix user); `postfixUnavailable()` says why it cannot run here.
import { until } from './until.js';
import { spawnSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const POSTFIX = '/usr/sbin/postfix';

/** Why a private Postfix cannot run on this machine, or null when it can. */
export function postfixUnavailable(): string | null {
  if (!existsSync(POSTFIX)) return 'postfix is not installed (apt-get install postfix)';
  if (process.getuid?.() !== 0) return 'a private postfix instance needs root';
  return null;
}

/** A free loopback port, for a server that must be named before it starts. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
    s.on('error', reject);
  });
}

export interface Postfix {
  /** Its smtpd's port on 127.0.0.1. */
  port: number;
  /** What Postfix logged so far (its maillog), for assertion messages. */
  log(): string;
  /** The master's pid (its children's CPU is counted in its cutime once they exit). */
  pid(): number | null;
}

/**
 * `milter`: an smtpd milter on that loopback port (OpenDKIM, for the peer benchmark); `extra`: more
 * main.cf lines, after the others (a later line wins).
 */
export async function startPostfix(
  t: { after(fn: () => unknown): void },
  opts: { port: number; relay: number; routes?: Record<string, number>; milter?: number; extra?: string[] },
): Promise<Postfix> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-postfix-'));
  // Postfix's own processes run as the postfix user and must reach their data directory.
  chmodSync(dir, 0o755);
  const conf = join(dir, 'conf');
  for (const d of ['conf', 'queue', 'data']) mkdirSync(join(dir, d));
  chownSync(join(dir, 'data'), Number(spawnSync('id', ['-u', 'postfix'], { encoding: 'utf8' }).stdout.trim()), 0);
  const routes = Object.entries(opts.routes ?? {})
    .map(([domain, port]) => `{${domain} = smtp:[127.0.0.1]:${port}}`)
    .join(' ');
  writeFileSync(
    join(conf, 'main.cf'),
    [
      'compatibility_level = 3.6',
      `queue_directory = ${join(dir, 'queue')}`,
      `data_directory = ${join(dir, 'data')}`,
      'mail_owner = postfix',
      'setgid_group = postdrop',
      'shlib_directory = /usr/lib/postfix',
      'myhostname = postfix.test',
      'mydomain = postfix.test',
      'myorigin = postfix.test',
      'mydestination =',
      'inet_interfaces = loopback-only',
      'inet_protocols = ipv4',
      'mynetworks = 127.0.0.0/8',
      `relayhost = [127.0.0.1]:${opts.relay}`,
      ...(routes ? [`transport_maps = inline:{ ${routes} }`] : []),
      'smtp_dns_support_level = disabled',
      // Opportunistic STARTTLS, as Postfix delivers on the internet: to our MX too.
      'smtp_tls_security_level = may',
      'smtp_tls_loglevel = 1',
      'alias_maps =',
      'alias_database =',
      'local_recipient_maps =',
      `maillog_file_prefixes = ${dir}`,
      `maillog_file = ${join(dir, 'maillog')}`,
      // Deferred mail is tried again soon rather than in minutes.
      'queue_run_delay = 1s',
      'minimal_backoff_time = 1s',
      'maximal_backoff_time = 2s',
      // A delay warning (an RFC 3464 report with Action: delayed) for mail still queued after 1 s.
      'delay_warning_time = 1s',
      ...(opts.milter
        ? [`smtpd_milters = inet:127.0.0.1:${opts.milter}`, 'non_smtpd_milters = $smtpd_milters', 'milter_default_action = tempfail']
        : []),
      ...(opts.extra ?? []),
      '',
    ].join('\n'),
  );
  // Debian's services, without chroot (the queue is not set up as a jail) and without the smtpd
  // on port 25; ours listens on the port given.
  const master = readFileSync('/etc/postfix/master.cf', 'utf8')
    .split('\n')
    .filter((l) => !/^smtp\s+inet/.test(l))
    .map((l) => {
      const f = l.split(/\s+/);
      return /^[a-z]/.test(l) && f.length >= 8 && f[4] === 'y' ? [...f.slice(0, 4), 'n', ...f.slice(5)].join(' ') : l;
    });
  master.push(`127.0.0.1:${opts.port} inet n - n - - smtpd`);
  writeFileSync(join(conf, 'master.cf'), master.join('\n') + '\n');
  const run = (...args: string[]) => spawnSync(POSTFIX, ['-c', conf, ...args], { encoding: 'utf8' });
  const maillog = () => (existsSync(join(dir, 'maillog')) ? readFileSync(join(dir, 'maillog'), 'utf8') : '');
  const started = run('start');
  // Stopped before its directory goes.
  t.after(() => {
    run('abort');
    rmSync(dir, { recursive: true, force: true });
  });
  if (started.status !== 0) throw new Error(`postfix start: ${started.stderr}${started.stdout}${maillog()}`);
  // The master answers once its smtpd is listening (a deadline against a hang only: a loaded machine can take long).
  await until(
    'Postfix listening',
    () => connects(opts.port),
    (up) => up,
    120_000,
    50,
  );
  const pidFile = join(dir, 'queue', 'pid', 'master.pid');
  return { port: opts.port, log: maillog, pid: () => (existsSync(pidFile) ? Number(readFileSync(pidFile, 'utf8').trim()) || null : null) };
}

function connects(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    // On loopback a port accepts or refuses at once.
    const s = connect(port, '127.0.0.1');
    s.once('connect', () => (s.destroy(), resolve(true)));
    s.once('error', () => resolve(false));
  });
}

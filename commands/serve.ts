import { systemClock, systemRandom } from '../src/clock.js';
import { baseUrlIsDerived } from '../src/config.js';
import type { CommandSpec } from './spec.js';

/**
 * A smarthost password given in --outbound is visible to every local user in /proc/PID/cmdline:
 * the process title (which Linux shows there) is rewritten without it once the flags are read.
 * It was visible from exec until here; SVC_OUTBOUND or a config file never puts it there.
 */
function hidePassword(outbound: string): void {
  let password: string;
  try {
    password = new URL(outbound).password;
  } catch {
    return;
  }
  if (!password) return;
  const masked = process.argv.map((a) => a.split(password).join('***').split(decodeURIComponent(password)).join('***'));
  if (masked.some((a, i) => a !== process.argv[i])) process.title = masked.join(' ');
}

const PEER_ERRORS = new Set(['EPIPE', 'ECONNRESET', 'ECONNABORTED', 'ETIMEDOUT']);

export default {
  verb: 'serve',
  summary: 'run the daemon: REST API, SMTP relay, inbound MX and workers',
  options: [
    { flags: '--host <address>', description: 'address every listener binds (SVC_HOST, default 127.0.0.1)' },
    { flags: '--api-port <port>', description: 'REST API port, 0 picks a free one (SVC_API_PORT, default 8080)' },
    { flags: '--relay-port <port>', description: 'SMTP relay port (SVC_RELAY_PORT, default 2525)' },
    { flags: '--mx-port <port>', description: 'inbound MX port (SVC_MX_PORT, default 2526)' },
    { flags: '--base-url <url>', description: 'public URL for tracking and unsubscribe links (SVC_BASE_URL)' },
    { flags: '--outbound <mode>', description: 'direct, or smtp://[user:pass@]host:port (SVC_OUTBOUND)' },
    { flags: '--tls-cert <file>', description: 'STARTTLS certificate (SVC_TLS_CERT)' },
    { flags: '--tls-key <file>', description: 'STARTTLS key (SVC_TLS_KEY)' },
    { flags: '--body-limit <size>', description: 'largest REST request body, e.g. 1mb (SVC_BODY_LIMIT, default 1mb)' },
    { flags: '--migrate', description: 'postgres: apply pending schema migrations before serving' },
    { flags: '--outbound-ca <file>', description: 'PEM file of the private CA that signed the smarthost certificate (SVC_OUTBOUND_CA)' },
    { flags: '--helo-name <host>', description: 'the name outbound SMTP gives in EHLO; it should resolve to this host and back (SVC_HELO_NAME, default the --mx-host)' },
    { flags: '--direct-port <port>', description: 'port of direct MX delivery (SVC_DIRECT_PORT, default 25)' },
    { flags: '--smtp-timeout <ms>', description: 'outbound SMTP connect/greeting/idle timeout (SVC_SMTP_TIMEOUT, default 60000)' },
    { flags: '--retry-window <seconds>', description: 'retry temporary failures this long, then bounce (SVC_RETRY_WINDOW, default 14400)' },
    { flags: '--recipients-per-transaction <n>', description: 'recipients in one outbound SMTP transaction at most; more go in further ones (SVC_RECIPIENTS_PER_TRANSACTION, default 100)' },
    { flags: '--delivery-concurrency <n>', description: 'hand-offs at once (SVC_DELIVERY_CONCURRENCY, default 32)' },
    { flags: '--compose-threads <n>', description: 'threads that compose and DKIM-sign (SVC_COMPOSE_THREADS, default the cores, at most 4; 0 = none)' },
    { flags: '--retention-days <days>', description: 'remove messages older than this (SVC_RETENTION_DAYS, default 30)' },
    { flags: '--relay-connection-limit <seconds>', description: 'relay connections are closed after this long (SVC_RELAY_CONNECTION_LIMIT, default 300)' },
    { flags: '--relay-max-connections <n>', description: 'relay connections open at once; more get 421 4.7.0 (SVC_RELAY_MAX_CONNECTIONS, default 500)' },
    { flags: '--relay-max-connections-per-address <n>', description: 'relay connections open at once from one address (SVC_RELAY_MAX_CONNECTIONS_PER_ADDRESS, default 20)' },
    { flags: '--relay-data-memory <size>', description: 'message data the relay holds in memory at once, all sessions; past it DATA gets 451 4.3.1 (SVC_RELAY_DATA_MEMORY, default 64mb)' },
    { flags: '--webhook-concurrency <n>', description: 'webhook attempts in flight at once (SVC_WEBHOOK_CONCURRENCY, default 64)' },
    { flags: '--no-delivery', description: 'accept and queue only; other daemons on the same Postgres hand off' },
    { flags: '--domain-recheck <seconds>', description: "how often every domain's records are re-checked; 0 = never (SVC_DOMAIN_RECHECK, default 3600)" },
  ],
  async run(ctx) {
    const config = ctx.config();
    hidePassword(config.outbound);
    const { startDaemon } = await import('../daemon/serve.js');
    // One peer's broken socket (EPIPE, ECONNRESET) must never take the daemon and every other
    // connection down with it; anything else thrown outside a handler still stops the process.
    process.removeAllListeners('uncaughtException');
    process.on('uncaughtException', (e: NodeJS.ErrnoException) => {
      if (e.code && PEER_ERRORS.has(e.code)) return ctx.log.warn(`a connection failed (${e.code}: ${e.message}); the daemon goes on`);
      ctx.log.error(`uncaught: ${e.stack ?? e.message}`);
      process.exit(1);
    });
    // Signals are taken from before the first ready line: a stop that arrives while the daemon
    // is still starting waits for the start, then stops cleanly (exit 0).
    const stopped = new Promise<void>((resolve) => {
      const stop = (signal: string) => {
        ctx.log.info(`${signal}: stopping`);
        process.removeListener('SIGINT', stop);
        process.removeListener('SIGTERM', stop);
        // A second signal while draining ends the process at once.
        process.once('SIGINT', () => process.exit(1));
        process.once('SIGTERM', () => process.exit(1));
        resolve();
      };
      process.on('SIGINT', stop);
      process.on('SIGTERM', stop);
    });
    const daemon = await startDaemon({
      config,
      clock: systemClock,
      random: systemRandom,
      log: ctx.log,
      ready: (line) => ctx.io.stdout.write(line + '\n'),
      baseUrlDerived: baseUrlIsDerived(ctx.flags, ctx.io.env),
      migrate: ctx.flags.migrate === true,
      deliver: (ctx.flags as { delivery?: boolean }).delivery !== false,
    });
    await stopped;
    await daemon.close();
    ctx.log.info('stopped');
  },
} satisfies CommandSpec;

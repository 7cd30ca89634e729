import { systemClock, systemRandom } from '../src/clock.js';
import { baseUrlIsDerived } from '../src/config.js';
import type { CommandSpec } from './spec.js';
import { helpOf, SETTINGS } from '../src/settings.js';

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
    ...SETTINGS.filter((s) => s.scope === 'serve' && s.flag).map((s) => ({ flags: s.flag!, description: helpOf(s) })),
    { flags: '--migrate', description: 'postgres: apply pending schema migrations before serving' },
    { flags: '--no-delivery', description: 'accept and queue only; other daemons on the same Postgres hand off' },
  ],
  async run(ctx) {
    const config = ctx.config();
    hidePassword(config.outbound);
    const [{ startDaemon }, { daemonLog }] = await Promise.all([import('../daemon/serve.js'), import('../daemon/log.js')]);
    // The daemon's log: text for a person at a terminal, JSON lines for journald, files and pipes.
    const log = daemonLog({
      format: config.logFormat ?? (!config.logFile && ctx.io.stderr.isTTY ? 'text' : 'json'),
      level: config.logLevel,
      file: config.logFile,
      buffer: config.logBuffer,
    });
    // One peer's broken socket (EPIPE, ECONNRESET) must never take the daemon and every other
    // connection down with it; anything else thrown outside a handler still stops the process.
    process.removeAllListeners('uncaughtException');
    process.on('uncaughtException', (e: NodeJS.ErrnoException) => {
      if (e.code && PEER_ERRORS.has(e.code)) return log.warn(`a connection failed (${e.code}: ${e.message}); the daemon goes on`);
      log.error(`uncaught: ${e.stack ?? e.message}`);
      void log.close(500).finally(() => process.exit(1));
    });
    // Signals are taken from before the first ready line: a stop that arrives while the daemon
    // is still starting waits for the start, then stops cleanly (exit 0).
    const stopped = new Promise<void>((resolve) => {
      const stop = (signal: string) => {
        log.info(`${signal}: stopping`);
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
    // Until the daemon is up a SIGHUP is ignored rather than ending the process (Node's default).
    const early = () => log.info('SIGHUP while starting: ignored; send it again once the daemon is ready');
    process.on('SIGHUP', early);
    const daemon = await startDaemon({
      config,
      clock: systemClock,
      random: systemRandom,
      log,
      ready: (line) => ctx.io.stdout.write(line + '\n'),
      baseUrlDerived: baseUrlIsDerived(ctx.settings()),
      migrate: ctx.flags.migrate === true,
      deliver: (ctx.flags as { delivery?: boolean }).delivery !== false,
    });
    // SIGHUP (a closed SSH session, `systemctl reload`) never stops the daemon: the config file is
    // read again, what can change live changes, the log file is reopened (daemon/reload.ts).
    const hup = () => {
      log.reopen();
      let next: ReturnType<typeof ctx.rereadConfig>;
      try {
        next = ctx.rereadConfig();
      } catch (e) {
        log.error(`SIGHUP: the configuration was not reloaded (${(e as Error).message}); nothing changed`);
        return;
      }
      daemon.reload(next.config).then(
        (r) => {
          // Said at whichever of the old and new levels writes more, then the new one holds.
          const RANK = ['debug', 'info', 'warn', 'error'];
          const level = next.config.logLevel;
          log.setLevel(RANK.indexOf(level) < RANK.indexOf(log.level) ? level : log.level);
          log.info(`SIGHUP: configuration read again${next.settings.file ? ` from ${next.settings.file.path}` : ''}`, {
            applied: r.applied.join(',') || 'nothing changed',
            ...(r.restart.length ? { restart_needed: r.restart.join(',') } : {}),
          });
          log.setLevel(level);
        },
        (e: Error) => log.error(`SIGHUP: ${e.message}`),
      );
    };
    process.removeListener('SIGHUP', early);
    process.on('SIGHUP', hup);
    await stopped;
    process.removeListener('SIGHUP', hup);
    await daemon.close();
    log.info('stopped');
    await log.close();
  },
} satisfies CommandSpec;

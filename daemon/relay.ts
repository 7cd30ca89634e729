// The SMTP relay on port 2525 (spec.md "SMTP relay"): the SMTP base (smtp/server.ts) speaks the
// protocol and bounds connections, time and memory; every decision is src/relay's. Here: AUTH with
// an API key (a connection that fails it a few times is closed, an address that keeps failing is
// throttled, and the key is checked again at every MAIL FROM), SIZE at MAIL FROM and DATA, at most
// 1,000 recipients, the send quota at RCPT, and DATA within the memory budget. Bare LF/CR line ends
// are normalised by src/relay once the data has ended (never a second message), and nothing sent
// before STARTTLS survives into the TLS session (smtp-server).
import type { SMTPServerAuthentication } from 'smtp-server';
import type { Service } from '../src/service.js';
import type { Principal } from '../src/auth/authenticate.js';
import { relayService } from '../src/relay/relay.js';
import { isSvcError, smtpReplyOf, SvcError, toSvcError } from '../src/errors.js';
import {
  SMTP_MAX_RECIPIENTS,
  SMTP_MAX_SIZE,
  listenSmtp,
  refusal,
  replyLine,
  sharedServerOptions,
  smtpError,
  type ListenerLimits,
} from './smtp/server.js';
import { readData } from './smtp/data.js';

export interface RelayOptions extends ListenerLimits {
  host: string;
  port: number;
  tls: { cert: string; key: string };
  /** Failed AUTH attempts on one connection before it is closed. */
  maxAuthFailures: number;
  /** Failed AUTH attempts from one address within authThrottleMs before it is refused for that long. */
  maxAuthFailuresPerAddress: number;
  authThrottleMs: number;
  /** Addresses whose failed AUTHs are remembered at most (the oldest are forgotten first). */
  maxTrackedAddresses: number;
}

export const DEFAULT_RELAY: Omit<RelayOptions, 'host' | 'port' | 'tls'> = {
  maxConnectionMs: 5 * 60_000,
  maxAuthFailures: 3,
  maxAuthFailuresPerAddress: 10,
  authThrottleMs: 10 * 60_000,
  maxConnections: 500,
  maxConnectionsPerAddress: 20,
  dataMemory: 64 * 1024 * 1024,
  maxTrackedAddresses: 10_000,
};

export interface RelayStats {
  connections: number;
  addresses: number;
  /** Bytes of message data held in memory now. */
  dataHeld: number;
  /** Source addresses whose failed AUTHs are remembered. */
  trackedAuthFailures: number;
}

interface State {
  principal: Principal | null;
  /** The hash of the key the session logged in with, checked again before each MAIL FROM (revocation). */
  keyHash: string | null;
  authFailures: number;
  rcpts: number;
  /** The send quota left, read once per transaction (at its first RCPT), not once per recipient. */
  quotaLeft: Promise<number> | null;
  /** Gives back the data memory of a DATA in progress (a connection can break in the middle). */
  releaseData: (() => void) | null;
  /** For the session's line in the mail log. */
  openedAt: number;
  workspace: string | null;
  messages: number;
  recipients: number;
}

export async function startRelay(
  service: Service,
  opts: RelayOptions,
): Promise<{ url: string; close(): Promise<void>; stats(): RelayStats; setTls(tls: { cert: string; key: string }): void }> {
  const { log, clock } = service.deps;
  const relay = relayService(service.deps, service.send);
  const states = new Map<string, State>();
  // Failed AUTHs per source address: bounded (the oldest address is forgotten first) and swept,
  // so a scan from many addresses cannot grow it without end.
  const failuresByAddress = new Map<string, number[]>();
  const recentFailures = (ip: string) => {
    const since = clock.now().getTime() - opts.authThrottleMs;
    const list = (failuresByAddress.get(ip) ?? []).filter((t) => t > since);
    if (list.length) failuresByAddress.set(ip, list);
    else failuresByAddress.delete(ip);
    return list;
  };
  const recordFailure = (ip: string) => {
    const list = recentFailures(ip);
    list.push(clock.now().getTime());
    failuresByAddress.delete(ip);
    failuresByAddress.set(ip, list);
    while (failuresByAddress.size > opts.maxTrackedAddresses) failuresByAddress.delete(failuresByAddress.keys().next().value!);
  };
  const sweep = setInterval(
    () => {
      for (const ip of [...failuresByAddress.keys()]) recentFailures(ip);
    },
    Math.max(1000, Math.min(opts.authThrottleMs, 60_000)),
  );
  sweep.unref();
  /** Any failure as a registry kind; an unexpected one is logged and is the spec's 451. */
  const replyFor = (e: unknown): SvcError => {
    const err = toSvcError(e);
    if (!(isSvcError(e) && e.kind !== 'internal')) log.error(`relay: ${err.message}`);
    return err;
  };

  const fail = (e: SvcError, callback: (e: Error) => void) => callback(smtpError(e));
  const refuse = (kind: Parameters<typeof refusal>[0], callback: (e: Error) => void, message?: string) => callback(refusal(kind, message));

  const listener = await listenSmtp({
    name: 'relay',
    host: opts.host,
    port: opts.port,
    limits: opts,
    log,
    // An authenticated submission port: every client logs in with a key, so the pause that catches
    // spammers talking before the greeting (kept on the MX) only costs each connection 100 ms, and
    // the client's reverse name is never used (relay mail is composed anew, with no Received line
    // of the client's).
    greetAtOnce: true,
    onConnection: (c) =>
      states.set(c.id, {
        principal: null,
        keyHash: null,
        authFailures: 0,
        rcpts: 0,
        quotaLeft: null,
        releaseData: null,
        openedAt: clock.now().getTime(),
        workspace: null,
        messages: 0,
        recipients: 0,
      }),
    server: {
      ...sharedServerOptions(service.deps.config.mxHost, opts.tls, SMTP_MAX_SIZE, null),
      authMethods: ['PLAIN', 'LOGIN'],
      // The spec accepts AUTH before STARTTLS for now.
      allowInsecureAuth: true,
      authOptional: false,
      disabledCommands: [],
      onConnect(session, callback) {
        if (recentFailures(session.remoteAddress).length >= opts.maxAuthFailuresPerAddress) {
          return refuse('auth_throttled', callback);
        }
        callback();
      },
      onAuth(auth: SMTPServerAuthentication, session, callback) {
        const state = states.get(session.id);
        relay.authenticate(auth.password ?? '').then(
          ({ principal: p, keyHash }) => {
            if (state) {
              state.principal = p;
              state.keyHash = keyHash;
              state.workspace = p.workspace.name;
            }
            // The key is never the user name of the session: only the workspace is kept.
            callback(null, { user: p.workspace.name });
          },
          (e: unknown) => {
            const err = replyFor(e);
            recordFailure(session.remoteAddress);
            service.deps.events?.event('warn', 'relay login-refused', { ip: session.remoteAddress, reply: replyLine(err) });
            if (state && ++state.authFailures >= opts.maxAuthFailures) {
              fail(err, callback);
              setImmediate(() => listener.hangUp(session.id, 'auth_failures'));
              return;
            }
            fail(err, callback);
          },
        );
      },
      onMailFrom(address, session, callback) {
        const state = states.get(session.id);
        if (!state?.principal) return refuse('auth_required', callback);
        const args = address.args as Record<string, string> | false;
        const size = Number((args && args.SIZE) || 0);
        if (size > SMTP_MAX_SIZE) return refuse('message_too_big', callback);
        state.rcpts = 0;
        state.quotaLeft = null;
        // Revocation takes effect on the next request (spec.md "Key rules"): an open session's key
        // is checked again for every transaction, and a revoked one ends the session.
        relay
          .reauthenticate(state.keyHash ?? '')
          .then(
            (p) => {
              state.principal = p;
              return relay.checkSender(p.workspace, address.address).then(() => callback());
            },
            (e: unknown) => {
              const err = replyFor(e);
              if (smtpReplyOf(err).code !== 535) throw e;
              state.principal = null;
              state.keyHash = null;
              fail(err, callback);
              setImmediate(() => listener.connection(session.id)?.close());
            },
          )
          .catch((e: unknown) => fail(replyFor(e), callback));
      },
      onRcptTo(address, session, callback) {
        const state = states.get(session.id);
        if (!state) return refuse('internal', callback, 'no session state');
        if (state.rcpts >= SMTP_MAX_RECIPIENTS) return refuse('too_many_recipients', callback);
        try {
          relay.checkRecipient(address.address);
        } catch (e) {
          return fail(replyFor(e), callback);
        }
        // The envelope so far already over the send quota: refused here, temporarily.
        state.quotaLeft ??= relay.remainingQuota(state.principal!.workspace);
        state.quotaLeft.then(
          (left) => {
            if (state.rcpts + 1 > left)
              return refuse('quota_exceeded', callback, 'Sending limit reached for this workspace; try again after the quota resets');
            state.rcpts++;
            callback();
          },
          (e: unknown) => {
            // Not kept: the next RCPT reads again.
            state.quotaLeft = null;
            fail(replyFor(e), callback);
          },
        );
      },
      onData(stream, session, callback) {
        const state = states.get(session.id);
        const data = readData(stream, listener.budget, SMTP_MAX_SIZE);
        if (state) state.releaseData = data.release;
        void data.done.then((got) => {
          if ('refused' in got) {
            if (got.refused === 'relay_memory_full')
              log.warn(
                `relay: ${Math.round(opts.dataMemory / 1048576)} MB of message data in memory already; a ${Math.round(got.size / 1024)} KB message was deferred with 451 4.3.1`,
              );
            return refuse(got.refused, callback);
          }
          if (!state?.principal || !session.envelope.mailFrom) {
            data.release();
            return refuse('bad_sequence', callback);
          }
          const rcpts = session.envelope.rcptTo.map((r) => r.address);
          const answer = relay
            .submit(state.principal.workspace, session.envelope.mailFrom.address, rcpts, got.raw, state.principal.key)
            .finally(data.release)
            .then(
              // smtp-server replies 250 with this text, naming the first recipient's record (Postfix's "queued as").
              (sent) => {
                state.messages++;
                state.recipients += rcpts.length;
                callback(null, `2.0.0 OK: queued as ${sent.id}`);
              },
              (e: unknown) => fail(replyFor(e), callback),
            );
          // On Postgres an unanswered statement is settled by a fence (up to 4 minutes for relay
          // mail): the connection's time limit waits for that answer.
          listener.answering(session.id, answer);
        });
      },
      onClose(session) {
        const state = states.get(session.id);
        state?.releaseData?.();
        states.delete(session.id);
        // The mail log's line per relay session: who, for which workspace, what was queued.
        if (state) {
          service.deps.events?.event('info', 'relay session', {
            session: session.id,
            client: session.remoteAddress,
            helo: session.hostNameAppearsAs,
            tls: session.secure,
            workspace: state.workspace,
            messages: state.messages,
            recipients: state.recipients,
            auth_failures: state.authFailures,
            seconds: Math.round((clock.now().getTime() - state.openedAt) / 100) / 10,
          });
        }
      },
    },
  });
  return {
    url: listener.url,
    setTls: listener.setTls,
    stats: () => ({ ...listener.stats(), trackedAuthFailures: failuresByAddress.size }),
    close: async () => {
      clearInterval(sweep);
      await listener.close();
    },
  };
}

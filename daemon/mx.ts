// The inbound MX on --mx-port (CONTRACT.md "The MX"): the SMTP base (smtp/server.ts) speaks the
// protocol and bounds connections, time and memory; src/inbox/receive.ts decides. No AUTH (mail
// arrives from anyone's server); STARTTLS offered; 25 MB and 1,000 recipients as on the relay; a
// recipient is accepted only for a registered address on a verified domain or a return path of
// ours (550 otherwise: never an open relay); a workspace over its storage gets 452 4.2.2 at RCPT
// or DATA (deferred, not lost); the 250 comes after the message is durable in the store. Bare LF
// and CR line ends are made CRLF once the data has ended, as on the relay.
import type { Service } from '../src/service.js';
import { isSvcError, toSvcError, type SvcError } from '../src/errors.js';
import { normalizeLineBreaks } from '../src/mail/line-breaks.js';
import { inboundService, type Recipient } from '../src/inbox/receive.js';
import { inboundAuthenticator } from '../src/inbox/authenticate.js';
import { cachedResolve } from '../src/domains/dns.js';
import { threadParser } from '../src/inbox/parse-thread.js';
import {
  SMTP_MAX_RECIPIENTS,
  SMTP_MAX_SIZE,
  listenSmtp,
  refusal,
  reverseThrough,
  sharedServerOptions,
  smtpError,
  type ListenerLimits,
} from './smtp/server.js';
import { readData } from './smtp/data.js';

export interface MxOptions extends ListenerLimits {
  host: string;
  port: number;
  tls: { cert: string; key: string };
}

export const DEFAULT_MX: Omit<MxOptions, 'host' | 'port' | 'tls'> = {
  maxConnectionMs: 5 * 60_000,
  maxConnections: 500,
  maxConnectionsPerAddress: 20,
  dataMemory: 128 * 1024 * 1024,
};

interface State {
  recipients: Recipient[];
  releaseData: (() => void) | null;
}

export async function startMx(
  service: Service,
  opts: MxOptions,
): Promise<{ url: string; close(): Promise<void>; stats(): Record<string, number>; setTls(tls: { cert: string; key: string }): void }> {
  const { log } = service.deps;
  const { config } = service.deps;
  // SPF, DKIM, DMARC and ARC of every message, through the configured resolvers (answers kept a minute).
  const resolve = cachedResolve({ servers: config.dnsServers, timeoutMs: config.dnsTimeoutMs });
  // Reports are parsed whole in a thread of their own, never on the event loop every listener shares.
  const parser = threadParser();
  const inbound = inboundService(service.deps, {
    authenticate: inboundAuthenticator(resolve, config.mxHost),
    parse: parser.parse,
    rates: { perSender: config.mxRatePerSender, perWorkspace: config.mxRatePerWorkspace },
    unsubscribe: (token) => service.lists.unsubscribeByToken(token, 'mailto: unsubscribe'),
  });
  const states = new Map<string, State>();
  let received = 0;
  let deferred = 0;
  /** Any failure as a registry kind; an unexpected one is logged and answered 451 (the sender retries). */
  const replyFor = (e: unknown): SvcError => {
    const err = toSvcError(e);
    if (err.kind === 'mx_sender_rate' || err.kind === 'mx_workspace_rate') deferred++;
    if (!(isSvcError(e) && e.kind !== 'internal')) log.error(`mx: ${err.message}`);
    return err;
  };
  /**
   * The mail log's MX lines (docs/operating.md "The log"): every refusal with its stage and reply, and every
   * message taken, with the client, its HELO and the envelope. Info: this is what happened to mail.
   */
  type Session = Parameters<NonNullable<Parameters<typeof listenSmtp>[0]['server']['onMailFrom']>>[1];
  const verdict = (
    session: Session,
    stage: 'mail' | 'rcpt' | 'data',
    fields: Record<string, unknown>,
    refused?: Error & { responseCode?: number },
  ) => {
    service.deps.events?.event('info', refused ? 'mx refused' : 'mx accepted', {
      session: session.id,
      client: session.remoteAddress,
      helo: session.hostNameAppearsAs,
      tls: session.secure,
      from: session.envelope.mailFrom ? session.envelope.mailFrom.address : stage === 'mail' ? undefined : '',
      stage,
      ...fields,
      ...(refused ? { reply: `${refused.responseCode ?? ''} ${refused.message}`.trim() } : {}),
    });
    return refused;
  };
  const state = (id: string) => {
    let s = states.get(id);
    if (!s) states.set(id, (s = { recipients: [], releaseData: null }));
    return s;
  };

  const listener = await listenSmtp({
    name: 'mx',
    host: opts.host,
    port: opts.port,
    limits: opts,
    log,
    server: {
      ...sharedServerOptions(service.deps.config.mxHost, opts.tls, SMTP_MAX_SIZE, reverseThrough(resolve)),
      authOptional: true,
      disabledCommands: ['AUTH'],
      onMailFrom(address, session, callback) {
        // Anyone may send to our mailboxes; the null sender (<>) of bounce reports included.
        state(session.id).recipients = [];
        const args = address.args as Record<string, string> | false;
        const from = { from: address.address };
        if (Number((args && args.SIZE) || 0) > SMTP_MAX_SIZE) return callback(verdict(session, 'mail', from, refusal('message_too_big')));
        try {
          inbound.checkSender(address.address, session.remoteAddress ?? null);
        } catch (e) {
          return callback(verdict(session, 'mail', from, smtpError(replyFor(e))));
        }
        callback();
      },
      onRcptTo(address, session, callback) {
        const s = state(session.id);
        const to = { to: address.address };
        if (s.recipients.length >= SMTP_MAX_RECIPIENTS) return callback(verdict(session, 'rcpt', to, refusal('too_many_recipients')));
        inbound
          .admit(address.address)
          .then((r) => {
            s.recipients.push(r);
            callback();
          })
          .catch((e: unknown) => callback(verdict(session, 'rcpt', to, smtpError(replyFor(e)))));
      },
      onData(stream, session, callback) {
        const s = state(session.id);
        const data = readData(stream, listener.budget, SMTP_MAX_SIZE);
        s.releaseData = data.release;
        void data.done.then((got) => {
          const to = { to: s.recipients.map((r) => r.address).join(',') };
          if ('refused' in got) return callback(verdict(session, 'data', to, refusal(got.refused)));
          if (!s.recipients.length) {
            data.release();
            return callback(refusal('bad_sequence'));
          }
          const env = {
            mailFrom: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
            recipients: s.recipients,
            remoteIp: session.remoteAddress ?? null,
            helo: session.hostNameAppearsAs,
            clientHostname: session.clientHostname,
            tls: session.secure,
            id: session.id,
          };
          inbound
            .receive(env, normalizeLineBreaks(got.raw))
            .finally(data.release)
            .then(
              () => {
                received++;
                verdict(session, 'data', { ...to, size: got.raw.length });
                callback(null, '2.0.0 OK: queued');
              },
              (e: unknown) => callback(verdict(session, 'data', to, smtpError(replyFor(e)))),
            );
        });
      },
      onClose(session) {
        states.get(session.id)?.releaseData?.();
        states.delete(session.id);
        // Counted (metrics), not logged: the MX's lines are its verdicts.
        service.deps.events?.tally('mx session', { session: session.id });
      },
    },
  });
  return {
    url: listener.url,
    setTls: listener.setTls,
    stats: () => ({ ...listener.stats(), received, deferred }),
    close: async () => {
      await listener.close();
      await parser.close();
    },
  };
}

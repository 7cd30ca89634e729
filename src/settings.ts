// Every setting once: its flag, its environment variable, its default, how its value is read, what
// it means, and whether every command takes it or only `svc serve`. The commander options, the
// Config that loadConfig builds (config.ts), `svc config show`, docs/configuration.md's table
// and the man page's option lists all come from this table (a test holds the docs to it).
// Long because it is the table: one entry per setting, and the readers they share.
import { isIP } from 'node:net';
import { availableParallelism } from 'node:os';
import { SvcError } from './errors.js';
import { RETURN_PATH_MODES } from './mail/return-path.js';
import { parseMailbox } from './mail/address.js';
import { LOG_LEVELS } from './log.js';

const usage = (msg: string) => new SvcError('usage', msg);

/** Where a setting's value came from. */
export type Source = 'flag' | 'env' | 'file' | 'default';

/** The values read so far, by setting name (defaults may depend on earlier ones). */
export type Values = Record<string, unknown>;

export interface Setting {
  /** camelCase: the commander option's name, the key in flags and in Values. */
  name: string;
  /** As commander takes it: `--api-port <port>`, or `--allow-insecure-webhooks` for a switch; absent for a secret only the environment may give. */
  flag?: string;
  env?: string;
  /** The default as text (parsed like a given value), or computed from settings read before it. */
  default?: string | ((v: Values) => string | undefined);
  /** How the default reads in help and docs when it is not a plain value. */
  defaultText?: string;
  /** `serve`: only `svc serve` takes the flag (the environment variable is read by every command). */
  scope: 'global' | 'serve';
  /** Never shown whole (`svc config show` masks it). `url`: only the URL's password is hidden. */
  secret?: 'value' | 'url';
  description: string;
  /** Reads a given or default value; absent: the text itself. A switch gets 'true' when set. */
  parse?(raw: string, v: Values): unknown;
}

// Readers ---------------------------------------------------------------------------------------

function parsePort(name: string, raw: string): number {
  if (!/^\d{1,5}$/.test(raw) || Number(raw) > 65535) throw usage(`invalid ${name} '${raw}': a port is a whole number from 0 to 65535`);
  return Number(raw);
}

function parseHttpUrl(name: string, raw: string): string {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw usage(`invalid ${name} '${raw}': not a URL`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw usage(`invalid ${name} '${raw}': use http:// or https://`);
  return raw.replace(/\/+$/, '');
}

const HOSTNAME = /^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*\.?$/i;

function parseHostname(name: string, raw: string): string {
  if (!HOSTNAME.test(raw)) throw usage(`invalid ${name} '${raw}': not a host name`);
  return raw.toLowerCase().replace(/\.$/, '');
}

function parseSystemSender(raw: string): string {
  const m = parseMailbox(raw);
  if ('error' in m) throw usage(`invalid --system-sender '${raw}': ${m.error}`);
  return m.address.toLowerCase();
}

/** Addresses and networks (`127.0.0.1`, `10.0.0.0/8`, `::1`), comma-separated. */
function parseTrustedProxies(raw: string): string[] {
  return raw
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean)
    .map((x) => {
      const [ip, bits, extra] = x.split('/');
      const max = isIP(ip ?? '') === 4 ? 32 : isIP(ip ?? '') === 6 ? 128 : 0;
      if (!max || extra !== undefined || (bits !== undefined && !(/^\d+$/.test(bits) && Number(bits) <= max)))
        throw usage(`invalid --trusted-proxy '${x}': an address or a network (10.0.0.0/8)`);
      return x;
    });
}

function parseHost(raw: string): string {
  if (isIP(raw) || HOSTNAME.test(raw)) return raw;
  throw usage(`invalid --host '${raw}': not an address or host name`);
}

function parseOutbound(raw: string): string {
  if (raw === 'direct') return raw;
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw usage(`invalid --outbound '${raw}': use direct or smtp://[user:pass@]host:port`);
  }
  if (u.protocol !== 'smtp:' && u.protocol !== 'smtps:') throw usage(`invalid --outbound '${u.protocol}': use direct, smtp:// or smtps://`);
  if (!u.hostname) throw usage(`invalid --outbound: missing host`);
  return raw;
}

function parseDnsServers(raw: string): string[] {
  const list = raw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  for (const s of list) {
    const m = /^(?:\[([^\]]+)\]|([^:]+))(?::(\d+))?$/.exec(s);
    const host = m?.[1] ?? m?.[2];
    if (!m || !host || isIP(host) === 0 || (m[3] !== undefined && (Number(m[3]) < 1 || Number(m[3]) > 65535))) {
      throw usage(`invalid --dns-server '${s}': use IP[:port], comma-separated`);
    }
  }
  return list;
}

function parseCount(name: string, raw: string, min: number, max: number): number {
  if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max)
    throw usage(`invalid ${name} '${raw}': a whole number from ${min} to ${max}`);
  return Number(raw);
}

function parseSize(name: string, raw: string): number {
  const m = /^(\d+)\s*(b|kb|k|mb|m)?$/i.exec(raw.trim());
  if (!m) throw usage(`invalid ${name} '${raw}': use bytes, or a number with kb or mb`);
  const unit = (m[2] ?? 'b').toLowerCase();
  const n = Number(m[1]) * (unit.startsWith('k') ? 1024 : unit.startsWith('m') ? 1024 * 1024 : 1);
  if (n < 1024) throw usage(`invalid ${name} '${raw}': at least 1kb`);
  return n;
}

/** One of a few words; the refusal lists them, joined as the setting has always said them. */
const oneOf = (flag: string, values: readonly string[], joiner: string) => (raw: string) => {
  if (!values.includes(raw)) throw usage(`invalid ${flag} '${raw}': use ${values.join(joiner)}`);
  return raw;
};

const truthy = (v: string) => /^(1|true|yes|on)$/i.test(v);
const count = (flag: string, min: number, max: number) => (raw: string) => parseCount(flag, raw, min, max);

// The table ----------------------------------------------------------------------------------------

const TABLE = [
  {
    name: 'config',
    flag: '--config <file>',
    env: 'SVC_CONFIG',
    defaultText: '`svc.toml` in the working directory, else `/etc/svc/svc.toml`, if there is one',
    scope: 'global',
    description: 'the config file (TOML, written by `svc init`): instance settings for the daemon and every command',
  },
  {
    name: 'store',
    flag: '--store <url>',
    env: 'SVC_STORE',
    default: 'file:./svc-data',
    scope: 'global',
    secret: 'url',
    description: '`file:DIR` (embedded store in DIR) or `postgres://` / `postgresql://` (`?schema=NAME` for a schema of its own)',
  },
  {
    name: 'workspace',
    flag: '--workspace <name>',
    env: 'SVC_WORKSPACE',
    defaultText: 'the only workspace, if there is exactly one',
    scope: 'global',
    description: 'workspace of workspace-scoped commands',
  },
  {
    name: 'pgPoolSize',
    flag: '--pg-pool-size <n>',
    env: 'SVC_PG_POOL_SIZE',
    default: '10',
    scope: 'global',
    description: 'Postgres connections per process',
    parse: count('--pg-pool-size', 1, 1000),
  },
  {
    name: 'pgStatementTimeout',
    flag: '--pg-statement-timeout <ms>',
    env: 'SVC_PG_STATEMENT_TIMEOUT',
    default: '10000',
    scope: 'global',
    description: 'ms before a Postgres statement is cancelled (503)',
    parse: count('--pg-statement-timeout', 1, 3_600_000),
  },
  {
    name: 'pgConnectTimeout',
    flag: '--pg-connect-timeout <ms>',
    env: 'SVC_PG_CONNECT_TIMEOUT',
    default: '3000',
    scope: 'global',
    description: 'ms to wait for a Postgres connection (503 past it)',
    parse: count('--pg-connect-timeout', 1, 600_000),
  },
  {
    name: 'encryptionKeyFile',
    flag: '--encryption-key-file <file>',
    env: 'SVC_ENCRYPTION_KEY_FILE',
    scope: 'global',
    description:
      'file holding the key (32 bytes, hex or base64) that encrypts DKIM private keys at rest, in Postgres and in the file store; or the key itself in `SVC_ENCRYPTION_KEY` (never a flag: flags show in /proc)',
  },
  {
    name: 'encryptionKey',
    env: 'SVC_ENCRYPTION_KEY',
    scope: 'global',
    secret: 'value',
    description: 'the key itself, instead of `--encryption-key-file`',
  },
  {
    name: 'host',
    flag: '--host <address>',
    env: 'SVC_HOST',
    default: '127.0.0.1',
    scope: 'serve',
    description: 'address every listener binds',
    parse: parseHost,
  },
  {
    name: 'apiPort',
    flag: '--api-port <port>',
    env: 'SVC_API_PORT',
    default: '8080',
    scope: 'serve',
    description: 'REST API, tracking and unsubscribe; `0` picks a free port',
    parse: (r) => parsePort('--api-port', r),
  },
  {
    name: 'relayPort',
    flag: '--relay-port <port>',
    env: 'SVC_RELAY_PORT',
    default: '2525',
    scope: 'serve',
    description: 'SMTP relay; `0` picks a free port',
    parse: (r) => parsePort('--relay-port', r),
  },
  {
    name: 'mxPort',
    flag: '--mx-port <port>',
    env: 'SVC_MX_PORT',
    default: '2526',
    scope: 'serve',
    description: 'inbound MX; `0` picks a free port',
    parse: (r) => parsePort('--mx-port', r),
  },
  {
    name: 'baseUrl',
    flag: '--base-url <url>',
    env: 'SVC_BASE_URL',
    default: (v) => `http://${isIP(v.host as string) === 6 ? `[${v.host as string}]` : (v.host as string)}:${v.apiPort as number}`,
    defaultText: 'http://HOST:API_PORT',
    scope: 'serve',
    description: 'public URL in tracking and unsubscribe links',
    parse: (r) => parseHttpUrl('--base-url', r),
  },
  {
    name: 'serviceDomain',
    flag: '--service-domain <domain>',
    env: 'SVC_SERVICE_DOMAIN',
    default: 'svc.localhost',
    scope: 'global',
    description: 'the `{service_domain}` of the SPF include',
    parse: (r) => parseHostname('--service-domain', r),
  },
  {
    name: 'mxHost',
    flag: '--mx-host <host>',
    env: 'SVC_MX_HOST',
    default: (v) => `mx.${v.serviceDomain as string}`,
    defaultText: 'mx. + service domain',
    scope: 'global',
    description: 'the `{mx_host}` domains point MX at',
    parse: (r) => parseHostname('--mx-host', r),
  },
  {
    name: 'heloName',
    flag: '--helo-name <host>',
    env: 'SVC_HELO_NAME',
    default: (v) => v.mxHost as string,
    defaultText: 'the --mx-host',
    scope: 'serve',
    description: 'the name outbound SMTP gives in EHLO (it should resolve to the sending IP and back)',
    parse: (r) => parseHostname('--helo-name', r),
  },
  {
    name: 'outbound',
    flag: '--outbound <mode>',
    env: 'SVC_OUTBOUND',
    default: 'direct',
    scope: 'serve',
    secret: 'url',
    description:
      '`direct`, or a smarthost `smtp://[user:pass@]host:port` / `smtps://...`; a password is better given in `SVC_OUTBOUND` (in the flag it shows in /proc/PID/cmdline until the daemon rewrites its process title)',
    parse: parseOutbound,
  },
  {
    name: 'returnPath',
    flag: '--return-path <mode>',
    env: 'SVC_RETURN_PATH',
    default: 'verp',
    scope: 'serve',
    description:
      "envelope sender of outbound mail: `verp`, a return path per recipient (`bounces+TOKEN@DOMAIN`, so a bounce or complaint can only speak for its own recipient); or `from`, the From address, for a smarthost that takes only its users' own addresses (Postfix `reject_sender_login_mismatch`, Office 365, Gmail); with `from`, later bounce reports reach the team inbox and change nothing",
    parse: oneOf('--return-path', RETURN_PATH_MODES, ' or '),
  },
  {
    name: 'feedbackLoops',
    flag: '--feedback-loops <domains>',
    env: 'SVC_FEEDBACK_LOOPS',
    defaultText: 'none',
    scope: 'serve',
    description:
      'comma-separated domains of feedback loops (e.g. `fbl.example.net`) whose complaint reports are acted on when they arrive at a team-inbox address, authenticated (DMARC, or SPF or DKIM aligned with their From); complaints at a return path are always acted on, others are kept as mail',
    parse: (r) =>
      r
        .split(',')
        .map((d) => d.trim())
        .filter(Boolean)
        .map((d) => parseHostname('--feedback-loops', d)),
  },
  {
    name: 'outboundCa',
    flag: '--outbound-ca <file>',
    env: 'SVC_OUTBOUND_CA',
    scope: 'serve',
    description: "PEM file of the private CA that signed the smarthost's certificate (instead of `?tls=insecure`)",
  },
  {
    name: 'dnsServer',
    flag: '--dns-server <list>',
    env: 'SVC_DNS_SERVERS',
    defaultText: 'the system resolvers',
    scope: 'global',
    description: '`IP[:port]` list for DNS checks and MX look-ups',
    parse: parseDnsServers,
  },
  {
    name: 'dnsTimeout',
    flag: '--dns-timeout <ms>',
    env: 'SVC_DNS_TIMEOUT',
    default: '2000',
    scope: 'global',
    description: 'per-try DNS timeout in ms; each query is tried twice',
    parse: count('--dns-timeout', 1, 60_000),
  },
  {
    name: 'tlsCert',
    flag: '--tls-cert <file>',
    env: 'SVC_TLS_CERT',
    defaultText: 'self-signed, kept in the store',
    scope: 'serve',
    description: 'STARTTLS certificate of relay and MX (with --tls-key)',
  },
  {
    name: 'tlsKey',
    flag: '--tls-key <file>',
    env: 'SVC_TLS_KEY',
    defaultText: 'self-signed, kept in the store',
    scope: 'serve',
    secret: 'value',
    description: 'STARTTLS key of relay and MX (with --tls-cert)',
  },
  {
    name: 'allowInsecureWebhooks',
    flag: '--allow-insecure-webhooks',
    env: 'SVC_ALLOW_INSECURE_WEBHOOKS',
    default: 'false',
    defaultText: 'off',
    scope: 'global',
    description: 'allow `http://` and private webhook targets (development only; `webhooks add`, `test` and `replay` honour it too)',
    parse: truthy,
  },
  {
    name: 'webhookTimeout',
    flag: '--webhook-timeout <ms>',
    env: 'SVC_WEBHOOK_TIMEOUT',
    default: '8000',
    scope: 'global',
    description: 'ms a webhook attempt waits for its answer (spec: 8 s)',
    parse: count('--webhook-timeout', 1, 600_000),
  },
  {
    name: 'webhookConcurrency',
    flag: '--webhook-concurrency <n>',
    env: 'SVC_WEBHOOK_CONCURRENCY',
    default: '64',
    scope: 'serve',
    description: 'webhook attempts in flight per daemon',
    parse: count('--webhook-concurrency', 1, 10_000),
  },
  {
    name: 'bodyLimit',
    flag: '--body-limit <size>',
    env: 'SVC_BODY_LIMIT',
    default: '1mb',
    scope: 'serve',
    description: 'largest REST request body (e.g. `1mb`); larger is 413',
    parse: (r) => parseSize('--body-limit', r),
  },
  {
    name: 'trustedProxies',
    flag: '--trusted-proxy <list>',
    env: 'SVC_TRUSTED_PROXIES',
    defaultText: 'none',
    scope: 'serve',
    description:
      "addresses (or networks) of the proxies in front of the API port, whose `X-Forwarded-For` is believed for the client's address (rate and sign-in limits, tracking, the log); the contrib files set `127.0.0.1`",
    parse: parseTrustedProxies,
  },
  {
    name: 'rateLimit',
    flag: '--rate-limit <n>',
    env: 'SVC_RATE_LIMIT',
    default: '60',
    scope: 'global',
    description: 'requests per minute per API key on `/api/v2` (sliding window)',
    parse: count('--rate-limit', 1, 1_000_000),
  },
  {
    name: 'systemSender',
    flag: '--system-sender <address>',
    env: 'SVC_SYSTEM_SENDER',
    defaultText: 'none',
    scope: 'global',
    description:
      "the address svc's own mail (invitations, confirmations of lists without a sender, trial warnings) comes from, e.g. `svc@{service_domain}`: an active address on a verified domain of the operator's workspace; without it invitation links are shown instead and no trial warning is sent",
    parse: parseSystemSender,
  },
  {
    name: 'upgradeUrl',
    flag: '--upgrade-url <url>',
    env: 'SVC_UPGRADE_URL',
    defaultText: "the web app's workspace page",
    scope: 'global',
    description: '`upgrade_url` of quota refusals',
    parse: (r) => parseHttpUrl('--upgrade-url', r),
  },
  {
    name: 'prefetchWindow',
    flag: '--prefetch-window <seconds>',
    env: 'SVC_PREFETCH_WINDOW',
    default: '5',
    scope: 'serve',
    description:
      'seconds after `sent_at` within which an open is taken for automatic image fetching (`prefetch: true`, not counted), and a click for a link scanner',
    parse: count('--prefetch-window', 0, 3600),
  },
  {
    name: 'domainRecheck',
    flag: '--domain-recheck <seconds>',
    env: 'SVC_DOMAIN_RECHECK',
    default: '3600',
    scope: 'serve',
    description: "seconds between the daemon's re-checks of every domain; `0` = off",
    parse: count('--domain-recheck', 0, 7 * 86_400),
  },
  {
    name: 'directPort',
    flag: '--direct-port <port>',
    env: 'SVC_DIRECT_PORT',
    default: '25',
    scope: 'serve',
    description: 'port of direct MX delivery (tests point it at a local sink)',
    parse: count('--direct-port', 1, 65535),
  },
  {
    name: 'smtpTimeout',
    flag: '--smtp-timeout <ms>',
    env: 'SVC_SMTP_TIMEOUT',
    default: '60000',
    scope: 'serve',
    description: 'ms to connect, greet and answer before a temporary failure',
    parse: count('--smtp-timeout', 100, 600_000),
  },
  {
    name: 'retryWindow',
    flag: '--retry-window <seconds>',
    env: 'SVC_RETRY_WINDOW',
    default: '14400',
    scope: 'serve',
    description: 'seconds temporary failures are retried before a bounce',
    parse: count('--retry-window', 0, 30 * 86_400),
  },
  {
    name: 'recipientsPerTransaction',
    flag: '--recipients-per-transaction <n>',
    env: 'SVC_RECIPIENTS_PER_TRANSACTION',
    default: '100',
    scope: 'serve',
    description: 'recipients in one outbound SMTP transaction at most; more go in further ones',
    parse: count('--recipients-per-transaction', 1, 1000),
  },
  {
    name: 'deliveryConcurrency',
    flag: '--delivery-concurrency <n>',
    env: 'SVC_DELIVERY_CONCURRENCY',
    default: '32',
    scope: 'serve',
    description: 'hand-offs in flight per daemon',
    parse: count('--delivery-concurrency', 1, 1000),
  },
  {
    name: 'composeThreads',
    flag: '--compose-threads <n>',
    env: 'SVC_COMPOSE_THREADS',
    default: () => String(Math.min(4, availableParallelism())),
    defaultText: 'the cores, at most 4',
    scope: 'serve',
    description: 'threads that compose and DKIM-sign; `0` = on the event loop',
    parse: count('--compose-threads', 0, 64),
  },
  {
    name: 'retentionDays',
    flag: '--retention-days <days>',
    env: 'SVC_RETENTION_DAYS',
    default: '30',
    scope: 'serve',
    description: 'messages older than this are removed',
    parse: count('--retention-days', 1, 3650),
  },
  {
    name: 'inboxRetentionDays',
    flag: '--inbox-retention-days <days>',
    env: 'SVC_INBOX_RETENTION_DAYS',
    default: '365',
    scope: 'serve',
    description:
      'mail the MX received is removed from the team inbox after this many days (Sent copies leave with the message log, `--retention-days`)',
    parse: count('--inbox-retention-days', 1, 36_500),
  },
  {
    name: 'storageLimit',
    flag: '--storage-limit <size>',
    env: 'SVC_STORAGE_LIMIT',
    scope: 'serve',
    defaultText: "the plan's",
    description:
      "received mail a workspace may keep (e.g. `500mb`), below its plan's storage quota; past it the MX defers with `452 4.2.2`",
    parse: (r) => parseSize('--storage-limit', r),
  },
  {
    name: 'relayConnectionLimit',
    flag: '--relay-connection-limit <seconds>',
    env: 'SVC_RELAY_CONNECTION_LIMIT',
    default: '300',
    scope: 'serve',
    description: 'seconds before a relay connection is closed',
    parse: count('--relay-connection-limit', 1, 86_400),
  },
  {
    name: 'relayMaxConnections',
    flag: '--relay-max-connections <n>',
    env: 'SVC_RELAY_MAX_CONNECTIONS',
    default: '500',
    scope: 'serve',
    description:
      'relay connections open at once; more get `421 4.7.0` at connect (lowered, with a warning, to leave a quarter of the open-file limit, at least 128, to the rest of the daemon)',
    parse: count('--relay-max-connections', 1, 100_000),
  },
  {
    name: 'apiMaxConnections',
    flag: '--api-max-connections <n>',
    env: 'SVC_API_MAX_CONNECTIONS',
    default: '1000',
    scope: 'serve',
    description:
      "API connections open at once (keep-alive and live streams included); more get `503` at connect (with the relay's and the MX's, lowered to leave a quarter of the open-file limit to the rest of the daemon)",
    parse: count('--api-max-connections', 1, 1_000_000),
  },
  {
    name: 'apiMaxConnectionsPerAddress',
    flag: '--api-max-connections-per-address <n>',
    env: 'SVC_API_MAX_CONNECTIONS_PER_ADDRESS',
    default: '100',
    scope: 'serve',
    description: 'API connections open at once from one address (a `--trusted-proxy` is counted in all only); more get `503`',
    parse: count('--api-max-connections-per-address', 1, 1_000_000),
  },
  {
    name: 'apiRequestTimeout',
    flag: '--api-request-timeout <seconds>',
    env: 'SVC_API_REQUEST_TIMEOUT',
    default: '60',
    scope: 'serve',
    description: 'a whole API request (headers within 10 s, a body at least 1 KB/s after its first 5 s) must be in within this; else `408`',
    parse: count('--api-request-timeout', 1, 3600),
  },
  {
    name: 'relayMaxConnectionsPerAddress',
    flag: '--relay-max-connections-per-address <n>',
    env: 'SVC_RELAY_MAX_CONNECTIONS_PER_ADDRESS',
    default: '20',
    scope: 'serve',
    description: "relay connections open at once from one address (as Postfix's `smtpd_client_connection_count_limit`)",
    parse: count('--relay-max-connections-per-address', 1, 100_000),
  },
  {
    name: 'mxMaxConnections',
    flag: '--mx-max-connections <n>',
    env: 'SVC_MX_MAX_CONNECTIONS',
    default: '500',
    scope: 'serve',
    description:
      "MX connections open at once; more get `421 4.7.0` at connect (with the relay's, lowered to leave a quarter of the open-file limit to the rest of the daemon)",
    parse: count('--mx-max-connections', 1, 100_000),
  },
  {
    name: 'mxMaxConnectionsPerAddress',
    flag: '--mx-max-connections-per-address <n>',
    env: 'SVC_MX_MAX_CONNECTIONS_PER_ADDRESS',
    default: '20',
    scope: 'serve',
    description: 'MX connections open at once from one address',
    parse: count('--mx-max-connections-per-address', 1, 100_000),
  },
  {
    name: 'mxRatePerSender',
    flag: '--mx-rate-per-sender <n>',
    env: 'SVC_MX_RATE_PER_SENDER',
    default: '120',
    scope: 'serve',
    description:
      'messages a minute the MX takes from one sender (MAIL FROM; the null sender counted per client IP); past it `451 4.7.1` at MAIL FROM; 0 = no limit',
    parse: count('--mx-rate-per-sender', 0, 10_000_000),
  },
  {
    name: 'mxRatePerWorkspace',
    flag: '--mx-rate-per-workspace <n>',
    env: 'SVC_MX_RATE_PER_WORKSPACE',
    default: '3000',
    scope: 'serve',
    description: 'messages a minute the MX takes into one workspace; past it `451 4.7.1` at RCPT; 0 = no limit',
    parse: count('--mx-rate-per-workspace', 0, 10_000_000),
  },
  {
    name: 'mxDataMemory',
    flag: '--mx-data-memory <size>',
    env: 'SVC_MX_DATA_MEMORY',
    default: '128mb',
    scope: 'serve',
    description: 'message data the MX holds in memory at once, over all sessions; a DATA that would pass it gets `451 4.3.1`',
    parse: (r) => parseSize('--mx-data-memory', r),
  },
  {
    name: 'metricsPort',
    flag: '--metrics-port <port>',
    env: 'SVC_METRICS_PORT',
    defaultText: 'off',
    scope: 'serve',
    description: 'Prometheus `/metrics` on a listener of its own (`0` picks a free port); off unless given',
    parse: (r) => parsePort('--metrics-port', r),
  },
  {
    name: 'metricsHost',
    flag: '--metrics-host <address>',
    env: 'SVC_METRICS_HOST',
    default: '127.0.0.1',
    scope: 'serve',
    description:
      'address the metrics listener binds: loopback unless you say otherwise, whatever `--host` is, so metrics are never open to the world by accident',
    parse: parseHost,
  },
  {
    name: 'logFormat',
    flag: '--log-format <format>',
    env: 'SVC_LOG_FORMAT',
    defaultText: '`text` when the log goes to a terminal, else `json`',
    scope: 'serve',
    description:
      "the daemon's log: `json`, one JSON object per line (`time`, `level`, `msg` and the event's fields), or `text`, one readable line; timestamps always",
    parse: oneOf('--log-format', ['json', 'text'], ' or '),
  },
  {
    name: 'logLevel',
    flag: '--log-level <level>',
    env: 'SVC_LOG_LEVEL',
    default: 'info',
    scope: 'serve',
    description:
      "the daemon's least level logged: `debug`, `info` (every delivery attempt, MX verdict, relay session and webhook attempt), `warn` (our own faults) or `error`; SIGHUP re-reads it",
    parse: oneOf('--log-level', LOG_LEVELS, ', '),
  },
  {
    name: 'logFile',
    flag: '--log-file <file>',
    env: 'SVC_LOG_FILE',
    defaultText: 'standard error',
    scope: 'serve',
    description: "file the daemon's log is appended to (made if missing); SIGHUP reopens it, for logrotate",
  },
  {
    name: 'logBuffer',
    flag: '--log-buffer <size>',
    env: 'SVC_LOG_BUFFER',
    default: '16mb',
    scope: 'serve',
    description:
      'log lines held while whatever reads the log (a terminal, a pipe, journald) does not keep up; past it lines are dropped and counted, never waited for',
    parse: (r) => parseSize('--log-buffer', r),
  },
  {
    name: 'relayDataMemory',
    flag: '--relay-data-memory <size>',
    env: 'SVC_RELAY_DATA_MEMORY',
    default: '64mb',
    scope: 'serve',
    description: 'message data the relay holds in memory at once, over all sessions; a DATA that would pass it gets `451 4.3.1`',
    parse: (r) => parseSize('--relay-data-memory', r),
  },
] as const satisfies readonly Setting[];

export const SETTINGS: readonly Setting[] = TABLE;

/** A setting's name: what loadConfig reads its value by (a typo is a compile error). */
export type SettingName = (typeof TABLE)[number]['name'];

/** `--api-port <port>` → `--api-port`. */
export const flagName = (s: Setting): string | undefined => s.flag?.split(' ')[0];

/** The default as people read it. */
export const defaultShown = (s: Setting): string => s.defaultText ?? (typeof s.default === 'string' ? s.default : 'none');

/** Commander's help text: the meaning, then where else it can come from and its default. */
export const helpOf = (s: Setting): string =>
  `${s.description.replace(/`/g, '')} (${[s.env, `default ${defaultShown(s).replace(/`/g, '')}`].filter(Boolean).join(', ')})`;

export interface Resolved {
  setting: Setting;
  /** The text given or defaulted; undefined when unset. */
  raw: string | undefined;
  source: Source;
  value: unknown;
}

/**
 * Reads every setting in table order: the flag, else the environment, else the config file's
 * value (config-file.ts), else the default. Invalid values are usage errors naming the flag.
 */
/**
 * A parser's refusal names the flag (`invalid --api-port 'abc'`); a value that came from the
 * environment or the config file is named as it was given there (`invalid SVC_API_PORT 'abc'`,
 * `invalid api-port 'abc' (config file)`), since that is what the operator has to change.
 */
function nameTheSource(e: unknown, setting: Setting, source: Source): unknown {
  const flag = flagName(setting);
  if (!(e instanceof SvcError) || !flag || source === 'flag' || !e.message.includes(flag)) return e;
  const where = source === 'env' && setting.env ? setting.env : source === 'file' ? `${flag.slice(2)} (config file)` : `${flag} (default)`;
  return new SvcError(e.kind, e.message.replace(flag, where));
}

export function resolveSettings(flags: Record<string, unknown>, env: NodeJS.ProcessEnv, file: Record<string, string> = {}): Resolved[] {
  const values: Values = {};
  return SETTINGS.map((setting) => {
    const given = flags[setting.name];
    let raw: string | undefined;
    let source: Source = 'default';
    if (given !== undefined && given !== false) {
      raw = given === true ? 'true' : String(given);
      source = 'flag';
    } else if (setting.env && env[setting.env]) {
      raw = env[setting.env];
      source = 'env';
    } else if (file[setting.name] !== undefined) {
      raw = file[setting.name];
      source = 'file';
    } else {
      raw = typeof setting.default === 'function' ? setting.default(values) : setting.default;
    }
    let value: unknown;
    try {
      value = raw === undefined ? undefined : setting.parse ? setting.parse(raw, values) : raw;
    } catch (e) {
      throw nameTheSource(e, setting, source);
    }
    values[setting.name] = value;
    return { setting, raw, source, value };
  });
}

/**
 * The settings among `names` that a flag sets to another value than the instance's own: an
 * override for this one run. The instance's own is what its config file (`file`, null when none
 * is read) and SVC_* environment say, defaults included when there is a config file. With neither,
 * a flag is the instance's setting as far as svc can tell (not an override).
 */
export function overriddenByFlags(
  names: readonly string[],
  flags: Record<string, unknown>,
  env: NodeJS.ProcessEnv,
  file: Record<string, string> | null,
): string[] {
  const withoutFlags = Object.fromEntries(Object.entries(flags).filter(([k]) => !names.includes(k)));
  const own = new Map(resolveSettings(withoutFlags, env, file ?? {}).map((r) => [r.setting.name, r]));
  const now = resolveSettings(flags, env, file ?? {});
  return names.filter((n) => {
    const r = now.find((x) => x.setting.name === n);
    const mine = own.get(n);
    return r?.source === 'flag' && mine !== undefined && (mine.source !== 'default' || file !== null) && mine.raw !== r.raw;
  });
}

/** A value as `svc config show` prints it: secrets masked. */
export function shown(r: Resolved): string | null {
  if (r.raw === undefined) return null;
  if (r.setting.secret === 'value') return '***';
  if (r.setting.secret === 'url') {
    try {
      const u = new URL(r.raw);
      if (u.password) {
        u.password = '***';
        return u.toString();
      }
    } catch {
      /* not a URL: nothing to hide */
    }
  }
  return r.raw;
}

/** docs/configuration.md's table of settings (every setting, in table order). */
export function markdownTable(): string {
  const rows = SETTINGS.map(
    (s) =>
      `| ${s.flag ? `\`${flagName(s)}\`${s.scope === 'serve' ? ' (serve)' : ''}` : ''} | ${s.env ? `\`${s.env}\`` : ''} | ${s.defaultText ?? (typeof s.default === 'string' ? `\`${s.default}\`` : 'none')} | ${s.description} |`,
  );
  return ['| Flag | Env | Default | Meaning |', '| - | - | - | - |', ...rows].join('\n');
}

const roff = (s: string) =>
  s
    .replace(/\\/g, '\\e')
    .replace(/-/g, '\\-')
    .replace(/`([^`]*)`/g, '\\fB$1\\fR');

/** The man page's ENVIRONMENT entries: every variable, the flag it stands for, its default. */
export function manEnvironment(): string {
  return SETTINGS.filter((s) => s.env)
    .map(
      (s) =>
        `.TP\n.B ${s.env}\n${s.flag ? `As \\fB${roff(flagName(s)!)}\\fR${s.scope === 'serve' ? ' (serve)' : ''}` : roff(s.description.replace(/^./, (c) => c.toUpperCase()))}; default ${roff(defaultShown(s))}.`,
    )
    .join('\n');
}

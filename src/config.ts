// Configuration is read once into one typed object: flags, then SVC_* environment, then defaults
// (CONTRACT.md "Binary and global options", "The daemon"). Invalid values are a usage error (exit 2)
// before anything starts.
import { isAbsolute, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isIP } from 'node:net';
import { availableParallelism } from 'node:os';
import { readFileSync } from 'node:fs';
import { SvcError } from './errors.js';

import type { StoreLocation } from './store/location.js';
export { describeStore, type PostgresLocation, type StoreLocation } from './store/location.js';

export interface Config {
  store: StoreLocation;
  workspace: string | undefined;
  host: string;
  apiPort: number;
  relayPort: number;
  mxPort: number;
  baseUrl: string;
  serviceDomain: string;
  mxHost: string;
  /** The name outbound SMTP gives in EHLO (default the mx host). */
  heloName: string;
  outbound: string;
  /** PEM file of the CA that signed the smarthost's certificate (a private CA). */
  outboundCa: string | undefined;
  dnsServers: string[];
  tlsCert: string | undefined;
  tlsKey: string | undefined;
  allowInsecureWebhooks: boolean;
  /** Largest REST request body in bytes; larger ones get 413 before they are buffered. */
  bodyLimit: number;
  /** upgrade_url of quota refusals; undefined: BASE_URL/upgrade (see upgradeUrlOf). */
  upgradeUrl: string | undefined;
  /** Per-try DNS timeout of domain checks and MX look-ups. */
  dnsTimeoutMs: number;
  /** How often the daemon re-checks every domain's records; 0 turns it off. */
  domainRecheckSeconds: number;
  /** Port of direct MX delivery (25 on the internet). */
  directPort: number;
  /** Connect, greeting and idle timeout of outbound SMTP. */
  smtpTimeoutMs: number;
  /** How long temporary failures are retried before a message bounces. */
  retryWindowSeconds: number;
  /** Outbound jobs handed off at once by one daemon. */
  deliveryConcurrency: number;
  /** Recipients in one outbound SMTP transaction at most. */
  recipientsPerTransaction: number;
  /** Messages older than this many days are removed by the daemon. */
  retentionDays: number;
  /** Threads that compose and DKIM-sign outbound mail; 0 = on the event loop. */
  composeThreads: number;
  /** A relay connection is closed after this long (spec: 5 minutes). */
  relayConnectionSeconds: number;
  /** Relay connections open at once, in all; more are answered 421 and closed. */
  relayMaxConnections: number;
  /** Relay connections open at once from one address (Postfix's smtpd_client_connection_count_limit). */
  relayMaxConnectionsPerAddress: number;
  /** Bytes of message data the relay holds in memory at once, over all sessions; past it DATA gets 451 4.3.1. */
  relayDataMemory: number;
  /** Requests per minute per API key on /api/v2 (spec: 60, sliding window). */
  rateLimit: number;
  /** How long a webhook attempt waits for its answer (spec: 8 seconds). */
  webhookTimeoutMs: number;
  /** Webhook attempts in flight at once in one daemon. */
  webhookConcurrency: number;
}

/** Flag values as commander hands them over (camelCase names of CONTRACT.md's flags). */
export type ConfigFlags = Partial<
  Record<keyof Omit<Config, 'store' | 'dnsServers' | 'allowInsecureWebhooks'> | 'store' | 'dnsServer' | 'pgPoolSize' | 'pgStatementTimeout' | 'pgConnectTimeout' | 'dnsTimeout' | 'domainRecheck' | 'directPort' | 'smtpTimeout' | 'retryWindow' | 'heloName' | 'outboundCa' | 'deliveryConcurrency' | 'recipientsPerTransaction' | 'retentionDays' | 'composeThreads' | 'encryptionKeyFile' | 'relayConnectionLimit' | 'relayMaxConnections' | 'relayMaxConnectionsPerAddress' | 'relayDataMemory' | 'rateLimit' | 'webhookTimeout' | 'webhookConcurrency', string>
> & {
  allowInsecureWebhooks?: boolean;
};

const usage = (msg: string) => new SvcError('usage', msg);

export interface PoolSettings {
  poolSize: number;
  statementTimeoutMs: number;
  connectTimeoutMs: number;
}

export const DEFAULT_POOL: PoolSettings = { poolSize: 10, statementTimeoutMs: 10_000, connectTimeoutMs: 3_000 };

export function parseStore(raw: string, cwd: string = process.cwd(), pool: PoolSettings = DEFAULT_POOL): StoreLocation {
  if (/^postgres(ql)?:\/\//i.test(raw)) {
    let u: URL;
    try {
      u = new URL(raw);
    } catch {
      throw usage(`invalid --store: malformed postgres URL`);
    }
    const schema = u.searchParams.get('schema') ?? undefined;
    if (schema !== undefined && !/^[a-z_][a-z0-9_]{0,62}$/.test(schema)) {
      throw usage(`invalid --store: schema '${schema}' must be lowercase letters, digits and _`);
    }
    u.searchParams.delete('schema');
    return { kind: 'postgres', url: u.toString(), schema, ...pool };
  }
  if (raw.startsWith('file:')) {
    const path = raw.startsWith('file://') ? fileURLToPath(raw) : raw.slice('file:'.length);
    if (!path) throw usage(`invalid --store '${raw}': file: needs a directory (file:DIR)`);
    return { kind: 'file', dir: isAbsolute(path) ? path : resolve(cwd, path) };
  }
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(raw)?.[1];
  throw usage(
    scheme
      ? `unknown store scheme '${scheme}:' (use file:DIR or postgres://...)`
      : `invalid --store '${raw}' (use file:DIR or postgres://...)`,
  );
}

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
  const list = raw.split(',').map((s) => s.trim()).filter(Boolean);
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
  if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) throw usage(`invalid ${name} '${raw}': a whole number from ${min} to ${max}`);
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

/** The operator's key: 64 hex characters or the base64 of 32 bytes. */
export function parseEncryptionKey(raw: string, from: string): Buffer {
  const text = raw.trim();
  const key = /^[0-9a-f]{64}$/i.test(text) ? Buffer.from(text, 'hex') : Buffer.from(text, 'base64');
  if (key.length !== 32 || (!/^[0-9a-f]{64}$/i.test(text) && key.toString('base64').replace(/=+$/, '') !== text.replace(/=+$/, ''))) {
    throw usage(`invalid encryption key in ${from}: 32 bytes, as 64 hex characters or base64 (make one with: openssl rand -hex 32)`);
  }
  return key;
}

/** A file a setting names, read once at start: one that cannot be read is wrong usage (exit 2). */
function readSettingFile(flag: string, file: string, cwd: string): string {
  try {
    return readFileSync(resolve(cwd, file), 'utf8');
  } catch (e) {
    throw usage(`cannot read ${flag} ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
}

/** The smarthost's CA, read at start, so a missing or wrong file is wrong usage, not a delivery fault. */
function readCaFile(file: string | undefined, cwd: string): string | undefined {
  if (file === undefined) return undefined;
  const pem = readSettingFile('--outbound-ca', file, cwd);
  if (!pem.includes('-----BEGIN CERTIFICATE-----')) throw usage(`--outbound-ca ${file} holds no PEM certificate`);
  return pem;
}

/** The key is never a flag value (flags show in /proc/PID/cmdline): the environment or a file. */
function readEncryptionKey(file: string | undefined, value: string | undefined, cwd: string): Buffer | undefined {
  if (file !== undefined) return parseEncryptionKey(readSettingFile('--encryption-key-file', file, cwd), file);
  return value ? parseEncryptionKey(value, 'SVC_ENCRYPTION_KEY') : undefined;
}

const withKey = (loc: StoreLocation, key: Buffer | undefined): StoreLocation => (loc.kind === 'postgres' && key ? { ...loc, encryptionKey: key } : loc);

const truthy = (v: string | undefined) => v !== undefined && /^(1|true|yes|on)$/i.test(v);

export const DEFAULT_BODY_LIMIT = 1024 * 1024;

export function loadConfig(flags: ConfigFlags, env: NodeJS.ProcessEnv = process.env, cwd: string = process.cwd()): Config {
  const pick = (flag: string | undefined, envName: string): string | undefined => flag ?? (env[envName] || undefined);
  const host = parseHost(pick(flags.host, 'SVC_HOST') ?? '127.0.0.1');
  const apiPort = parsePort('--api-port', pick(flags.apiPort, 'SVC_API_PORT') ?? '8080');
  const serviceDomain = parseHostname('--service-domain', pick(flags.serviceDomain, 'SVC_SERVICE_DOMAIN') ?? 'svc.localhost');
  const urlHost = isIP(host) === 6 ? `[${host}]` : host;
  const baseUrlRaw = pick(flags.baseUrl, 'SVC_BASE_URL');
  const dns = pick(flags.dnsServer, 'SVC_DNS_SERVERS');
  const workspace = pick(flags.workspace, 'SVC_WORKSPACE');
  const tlsCert = pick(flags.tlsCert, 'SVC_TLS_CERT');
  const tlsKey = pick(flags.tlsKey, 'SVC_TLS_KEY');
  if ((tlsCert === undefined) !== (tlsKey === undefined)) throw usage('--tls-cert and --tls-key go together');
  const pool: PoolSettings = {
    poolSize: parseCount('--pg-pool-size', pick(flags.pgPoolSize, 'SVC_PG_POOL_SIZE') ?? String(DEFAULT_POOL.poolSize), 1, 1000),
    statementTimeoutMs: parseCount('--pg-statement-timeout', pick(flags.pgStatementTimeout, 'SVC_PG_STATEMENT_TIMEOUT') ?? String(DEFAULT_POOL.statementTimeoutMs), 1, 3_600_000),
    connectTimeoutMs: parseCount('--pg-connect-timeout', pick(flags.pgConnectTimeout, 'SVC_PG_CONNECT_TIMEOUT') ?? String(DEFAULT_POOL.connectTimeoutMs), 1, 600_000),
  };
  const baseUrl = baseUrlRaw ? parseHttpUrl('--base-url', baseUrlRaw) : `http://${urlHost}:${apiPort}`;
  const encryptionKey = readEncryptionKey(pick(flags.encryptionKeyFile, 'SVC_ENCRYPTION_KEY_FILE'), env.SVC_ENCRYPTION_KEY, cwd);
  const upgradeUrl = pick(flags.upgradeUrl, 'SVC_UPGRADE_URL');
  return {
    store: withKey(parseStore(pick(flags.store, 'SVC_STORE') ?? 'file:./svc-data', cwd, pool), encryptionKey),
    workspace,
    host,
    apiPort,
    relayPort: parsePort('--relay-port', pick(flags.relayPort, 'SVC_RELAY_PORT') ?? '2525'),
    mxPort: parsePort('--mx-port', pick(flags.mxPort, 'SVC_MX_PORT') ?? '2526'),
    // With --api-port 0 the real port is known only after listening; serve fills it in then.
    baseUrl,
    serviceDomain,
    mxHost: parseHostname('--mx-host', pick(flags.mxHost, 'SVC_MX_HOST') ?? `mx.${serviceDomain}`),
    heloName: parseHostname('--helo-name', pick(flags.heloName, 'SVC_HELO_NAME') ?? pick(flags.mxHost, 'SVC_MX_HOST') ?? `mx.${serviceDomain}`),
    outbound: parseOutbound(pick(flags.outbound, 'SVC_OUTBOUND') ?? 'direct'),
    outboundCa: readCaFile(pick(flags.outboundCa, 'SVC_OUTBOUND_CA'), cwd),
    dnsServers: dns ? parseDnsServers(dns) : [],
    tlsCert: tlsCert ? resolve(cwd, tlsCert) : undefined,
    tlsKey: tlsKey ? resolve(cwd, tlsKey) : undefined,
    allowInsecureWebhooks: flags.allowInsecureWebhooks === true || truthy(env.SVC_ALLOW_INSECURE_WEBHOOKS),
    bodyLimit: parseSize('--body-limit', pick(flags.bodyLimit, 'SVC_BODY_LIMIT') ?? String(DEFAULT_BODY_LIMIT)),
    upgradeUrl: upgradeUrl ? parseHttpUrl('--upgrade-url', upgradeUrl) : undefined,
    dnsTimeoutMs: parseCount('--dns-timeout', pick(flags.dnsTimeout, 'SVC_DNS_TIMEOUT') ?? '2000', 1, 60_000),
    domainRecheckSeconds: parseCount('--domain-recheck', pick(flags.domainRecheck, 'SVC_DOMAIN_RECHECK') ?? '3600', 0, 7 * 86_400),
    directPort: parseCount('--direct-port', pick(flags.directPort, 'SVC_DIRECT_PORT') ?? '25', 1, 65535),
    smtpTimeoutMs: parseCount('--smtp-timeout', pick(flags.smtpTimeout, 'SVC_SMTP_TIMEOUT') ?? '60000', 100, 600_000),
    retryWindowSeconds: parseCount('--retry-window', pick(flags.retryWindow, 'SVC_RETRY_WINDOW') ?? '14400', 0, 30 * 86_400),
    deliveryConcurrency: parseCount('--delivery-concurrency', pick(flags.deliveryConcurrency, 'SVC_DELIVERY_CONCURRENCY') ?? '32', 1, 1000),
    recipientsPerTransaction: parseCount('--recipients-per-transaction', pick(flags.recipientsPerTransaction, 'SVC_RECIPIENTS_PER_TRANSACTION') ?? '100', 1, 1000),
    retentionDays: parseCount('--retention-days', pick(flags.retentionDays, 'SVC_RETENTION_DAYS') ?? '30', 1, 3650),
    rateLimit: parseCount('--rate-limit', pick(flags.rateLimit, 'SVC_RATE_LIMIT') ?? '60', 1, 1_000_000),
    relayConnectionSeconds: parseCount('--relay-connection-limit', pick(flags.relayConnectionLimit, 'SVC_RELAY_CONNECTION_LIMIT') ?? '300', 1, 86_400),
    relayMaxConnections: parseCount('--relay-max-connections', pick(flags.relayMaxConnections, 'SVC_RELAY_MAX_CONNECTIONS') ?? '500', 1, 100_000),
    relayMaxConnectionsPerAddress: parseCount('--relay-max-connections-per-address', pick(flags.relayMaxConnectionsPerAddress, 'SVC_RELAY_MAX_CONNECTIONS_PER_ADDRESS') ?? '20', 1, 100_000),
    relayDataMemory: parseSize('--relay-data-memory', pick(flags.relayDataMemory, 'SVC_RELAY_DATA_MEMORY') ?? '64mb'),
    webhookTimeoutMs: parseCount('--webhook-timeout', pick(flags.webhookTimeout, 'SVC_WEBHOOK_TIMEOUT') ?? '8000', 1, 600_000),
    webhookConcurrency: parseCount('--webhook-concurrency', pick(flags.webhookConcurrency, 'SVC_WEBHOOK_CONCURRENCY') ?? '64', 1, 10_000),
    composeThreads: parseCount('--compose-threads', pick(flags.composeThreads, 'SVC_COMPOSE_THREADS') ?? String(Math.min(4, availableParallelism())), 0, 64),
  };
}

/** The upgrade_url of quota refusals: the operator's, else under the (possibly derived) base URL. */
export const upgradeUrlOf = (c: Pick<Config, 'upgradeUrl' | 'baseUrl'>): string => c.upgradeUrl ?? `${c.baseUrl}/upgrade`;

/** True when the base URL was derived from host and port rather than given. */
export function baseUrlIsDerived(flags: ConfigFlags, env: NodeJS.ProcessEnv): boolean {
  return !(flags.baseUrl ?? env.SVC_BASE_URL);
}

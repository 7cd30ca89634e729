// Configuration is read once into one typed object: flags, then SVC_* environment, then the config
// file (config-file.ts), then defaults, each setting as its entry in settings.ts says. Invalid
// values are a usage error (exit 2) before anything starts.
import { isAbsolute, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readFileSync } from 'node:fs';
import { SvcError } from './errors.js';
import { resolveSettings, SETTINGS, type Resolved, type SettingName } from './settings.js';
import { configPath, readConfigFile, type ConfigFile } from './config-file.js';

import type { StoreLocation } from './store/location.js';
import type { ReturnPathMode } from './mail/return-path.js';
import type { LogLevel } from './log.js';
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
  /** Domains of feedback loops whose authenticated complaints to a team-inbox address are acted on. */
  feedbackLoops: string[];
  /** Envelope sender of outbound mail: a return path per recipient, or the From address. */
  returnPath: ReturnPathMode;
  /** PEM file of the CA that signed the smarthost's certificate (a private CA). */
  outboundCa: string | undefined;
  dnsServers: string[];
  /** Proxies in front of the API whose X-Forwarded-For names the client (fastify's trustProxy). */
  trustedProxies: string[];
  tlsCert: string | undefined;
  tlsKey: string | undefined;
  allowInsecureWebhooks: boolean;
  /** Largest REST request body in bytes; larger ones get 413 before they are buffered. */
  bodyLimit: number;
  /** upgrade_url of quota refusals; undefined: the app's workspace page (see upgradeUrlOf). */
  upgradeUrl: string | undefined;
  /** The address of svc's own mail (people/system-mail.ts); undefined: none is sent. */
  systemSender: string | undefined;
  /** Per-try DNS timeout of domain checks and MX look-ups. */
  dnsTimeoutMs: number;
  /** Opens this soon after sending are automatic fetching (spec: prefetch), clicks a scanner's. */
  prefetchWindowSeconds: number;
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
  /** Days received inbox items are kept. */
  inboxRetentionDays: number;
  /** Bytes of received mail a workspace may keep, below its plan's storage (undefined: the plan's). */
  storageLimit: number | undefined;
  /** Threads that compose and DKIM-sign outbound mail; 0 = on the event loop. */
  composeThreads: number;
  /** A relay connection is closed after this long (spec: 5 minutes). */
  relayConnectionSeconds: number;
  /** Relay connections open at once, in all; more are answered 421 and closed. */
  relayMaxConnections: number;
  /** Relay connections open at once from one address (Postfix's smtpd_client_connection_count_limit). */
  relayMaxConnectionsPerAddress: number;
  /** API connections open at once, in all and from one address; a whole request within this many seconds. */
  apiMaxConnections: number;
  apiMaxConnectionsPerAddress: number;
  apiRequestTimeoutSeconds: number;
  /** Bytes of message data the relay holds in memory at once, over all sessions; past it DATA gets 451 4.3.1. */
  relayDataMemory: number;
  /** Prometheus /metrics on its own listener; undefined: off. */
  metricsPort: number | undefined;
  metricsHost: string;
  /** The daemon's log: `json` or `text`; undefined: text on a terminal, else json. */
  logFormat: 'json' | 'text' | undefined;
  logLevel: LogLevel;
  /** File the daemon's log is appended to; undefined: standard error. */
  logFile: string | undefined;
  /** Bytes of log lines held for a slow reader; past it lines are dropped and counted. */
  logBuffer: number;
  /** MX connections open at once, in all, and from one address; message data it holds at once. */
  mxMaxConnections: number;
  mxMaxConnectionsPerAddress: number;
  mxDataMemory: number;
  /** Messages a minute the MX takes from one sender, and into one workspace (0: no limit). */
  mxRatePerSender: number;
  mxRatePerWorkspace: number;
  /** Requests per minute per API key on /api/v2 (spec: 60, sliding window). */
  rateLimit: number;
  /** How long a webhook attempt waits for its answer (spec: 8 seconds). */
  webhookTimeoutMs: number;
  /** Webhook attempts in flight at once in one daemon. */
  webhookConcurrency: number;
}

/** Flag values as commander hands them over, by setting name (settings.ts); switches are booleans. */
export type ConfigFlags = Record<string, unknown>;

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

const withKey = (loc: StoreLocation, key: Buffer | undefined): StoreLocation => (key ? { ...loc, encryptionKey: key } : loc);

/** Every setting resolved, and the config file they were read with (null: none). */
export interface LoadedSettings {
  resolved: Resolved[];
  file: ConfigFile | null;
}

/**
 * Reads the config file (--config, SVC_CONFIG, else ./svc.toml, else the system's file `system`
 * when there is one), then every setting.
 */
export function loadSettings(
  flags: ConfigFlags,
  env: NodeJS.ProcessEnv = process.env,
  cwd: string = process.cwd(),
  system?: string,
): LoadedSettings {
  const named = flags.config !== undefined ? String(flags.config) : env.SVC_CONFIG || undefined;
  const path = configPath(named, cwd, system);
  const file = path === null ? null : readConfigFile(path);
  return { resolved: resolveSettings(flags, env, file?.values), file };
}

/** SVC_* variables that are no setting (a misspelt one would be ignored in silence); tests' own aside. */
export function unknownEnv(env: NodeJS.ProcessEnv): string[] {
  const known = new Set(SETTINGS.flatMap((s) => (s.env ? [s.env] : [])));
  return Object.keys(env)
    .filter((k) => k.startsWith('SVC_') && !known.has(k) && !k.startsWith('SVC_TEST_') && !k.startsWith('SVC_BENCH_'))
    .sort();
}

export function loadConfig(
  flags: ConfigFlags,
  env: NodeJS.ProcessEnv = process.env,
  cwd: string = process.cwd(),
  loaded: LoadedSettings = loadSettings(flags, env, cwd),
): Config {
  // Every setting read once, in the table's order (settings.ts); what follows only assembles them.
  const v = Object.fromEntries(loaded.resolved.map((r) => [r.setting.name, r.value])) as Record<SettingName, unknown>;
  const num = (name: SettingName) => v[name] as number;
  const str = (name: SettingName) => v[name] as string | undefined;
  if ((str('tlsCert') === undefined) !== (str('tlsKey') === undefined)) throw usage('--tls-cert and --tls-key go together');
  const pool: PoolSettings = {
    poolSize: num('pgPoolSize'),
    statementTimeoutMs: num('pgStatementTimeout'),
    connectTimeoutMs: num('pgConnectTimeout'),
  };
  const encryptionKey = readEncryptionKey(str('encryptionKeyFile'), str('encryptionKey'), cwd);
  return {
    store: withKey(parseStore(str('store')!, cwd, pool), encryptionKey),
    workspace: str('workspace'),
    host: str('host')!,
    apiPort: num('apiPort'),
    relayPort: num('relayPort'),
    mxPort: num('mxPort'),
    // With --api-port 0 the real port is known only after listening; serve fills it in then.
    baseUrl: str('baseUrl')!,
    serviceDomain: str('serviceDomain')!,
    mxHost: str('mxHost')!,
    heloName: str('heloName')!,
    outbound: str('outbound')!,
    returnPath: str('returnPath') as ReturnPathMode,
    feedbackLoops: (v.feedbackLoops as string[] | undefined) ?? [],
    outboundCa: readCaFile(str('outboundCa'), cwd),
    dnsServers: (v.dnsServer as string[] | undefined) ?? [],
    trustedProxies: (v.trustedProxies as string[] | undefined) ?? [],
    tlsCert: str('tlsCert') ? resolve(cwd, str('tlsCert')!) : undefined,
    tlsKey: str('tlsKey') ? resolve(cwd, str('tlsKey')!) : undefined,
    allowInsecureWebhooks: v.allowInsecureWebhooks === true,
    bodyLimit: num('bodyLimit'),
    upgradeUrl: str('upgradeUrl'),
    systemSender: str('systemSender'),
    dnsTimeoutMs: num('dnsTimeout'),
    domainRecheckSeconds: num('domainRecheck'),
    prefetchWindowSeconds: num('prefetchWindow'),
    directPort: num('directPort'),
    smtpTimeoutMs: num('smtpTimeout'),
    retryWindowSeconds: num('retryWindow'),
    deliveryConcurrency: num('deliveryConcurrency'),
    recipientsPerTransaction: num('recipientsPerTransaction'),
    retentionDays: num('retentionDays'),
    inboxRetentionDays: num('inboxRetentionDays'),
    storageLimit: v.storageLimit as number | undefined,
    rateLimit: num('rateLimit'),
    relayConnectionSeconds: num('relayConnectionLimit'),
    relayMaxConnections: num('relayMaxConnections'),
    relayMaxConnectionsPerAddress: num('relayMaxConnectionsPerAddress'),
    apiMaxConnections: num('apiMaxConnections'),
    apiMaxConnectionsPerAddress: num('apiMaxConnectionsPerAddress'),
    apiRequestTimeoutSeconds: num('apiRequestTimeout'),
    relayDataMemory: num('relayDataMemory'),
    metricsPort: v.metricsPort as number | undefined,
    metricsHost: str('metricsHost')!,
    logFormat: str('logFormat') as Config['logFormat'],
    logLevel: str('logLevel') as LogLevel,
    logFile: str('logFile') ? resolve(cwd, str('logFile')!) : undefined,
    logBuffer: num('logBuffer'),
    mxMaxConnections: num('mxMaxConnections'),
    mxMaxConnectionsPerAddress: num('mxMaxConnectionsPerAddress'),
    mxDataMemory: num('mxDataMemory'),
    mxRatePerSender: num('mxRatePerSender'),
    mxRatePerWorkspace: num('mxRatePerWorkspace'),
    webhookTimeoutMs: num('webhookTimeout'),
    webhookConcurrency: num('webhookConcurrency'),
    composeThreads: num('composeThreads'),
  };
}

/** The upgrade_url of quota refusals: the operator's, else under the (possibly derived) base URL. */
/**
 * The `upgrade_url` of a workspace's quota refusals: the operator's --upgrade-url, else the web
 * app's page of the workspace, which shows its plan and usage and says how the plan is changed.
 */
export const upgradeUrlOf = (c: Pick<Config, 'upgradeUrl' | 'baseUrl'>, ws: { name: string }): string =>
  c.upgradeUrl ?? `${c.baseUrl}/app/w/${encodeURIComponent(ws.name)}/workspace#plan`;

/** True when the base URL was derived from host and port rather than given (by a flag, the environment or the file). */
export function baseUrlIsDerived(loaded: LoadedSettings): boolean {
  return loaded.resolved.find((r) => r.setting.name === 'baseUrl')?.source === 'default';
}

const LOOPBACK_HOST = /^(127\.\d+\.\d+\.\d+|::1|\[::1\]|localhost)$/i;

/**
 * What a daemon listening beyond loopback should not run with: links under a loopback base URL
 * reach nobody, and `svc.localhost` is no domain anyone can publish an SPF include for. Said once
 * at start; on loopback both are the ordinary local set-up and nothing is said.
 */
export function publicSettingsWarnings(c: Pick<Config, 'host' | 'baseUrl' | 'serviceDomain'>): string[] {
  if (LOOPBACK_HOST.test(c.host)) return [];
  const out: string[] = [];
  const baseHost = new URL(c.baseUrl).hostname;
  if (LOOPBACK_HOST.test(baseHost) || /^(0\.0\.0\.0|\[::\])$/.test(baseHost))
    out.push(
      `the base URL ${c.baseUrl} is not a public URL while svc listens on ${c.host}: tracking, unsubscribe and sign-in links will reach nobody; set --base-url (or base-url in the config file) to the public URL`,
    );
  if (c.serviceDomain === 'svc.localhost')
    out.push(
      `the service domain is svc.localhost while svc listens on ${c.host}: your users cannot publish an SPF include for it; set --service-domain (or service-domain in the config file)`,
    );
  return out;
}

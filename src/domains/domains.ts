// Domains of a workspace and their verification (spec.md "Prerequisites for sending").
import { upgradeUrlOf } from '../config.js';
import { SvcError, isSvcError } from '../errors.js';
import type { DepsOf } from '../deps.js';
import { mapLimit } from '../parallel.js';
import type { Domain } from '../model/domain.js';
import type { Workspace } from '../model/workspace.js';
import { createdOrLimit, limitFor } from '../workspaces/quota.js';
import { assertWritable } from '../workspaces/trial.js';
import { checkDomain, type CheckResult } from './check.js';
import { dnsClient, type DnsClient } from './dns.js';
import { newDkimKeyPair } from './dkim-keys.js';
import { normalizeDomain } from '../mail/names.js';
import { recordSpecs, type ServiceNames } from './records.js';
import { dkimBroken, type RecordStatus, type Purpose } from '../model/domain.js';

export interface RecordView {
  purpose: Purpose;
  type: 'TXT' | 'MX';
  name: string;
  fqdn: string;
  value: string;
  status: RecordStatus | null;
  note: string | null;
}

/** A domain as commands print it (CONTRACT.md `{id, domain, status, records}`); never the private key. */
export interface DomainView {
  id: string;
  domain: string;
  status: Domain['status'];
  legacy: boolean;
  dkim_verified: boolean;
  records: RecordView[];
  created_at: string;
  verified_at: string | null;
  checked_at: string | null;
  history: Domain['history'];
}

export function domainService(
  deps: DepsOf<'domains' | 'addresses'>,
  dns: DnsClient = dnsClient({ servers: deps.config.dnsServers, timeoutMs: deps.config.dnsTimeoutMs }),
) {
  const { store, clock, random, config } = deps;
  const names: ServiceNames = { serviceDomain: config.serviceDomain, mxHost: config.mxHost };

  function view(d: Domain): DomainView {
    const checks = new Map(d.records?.map((r) => [r.purpose, r]) ?? []);
    return {
      id: d.id,
      domain: d.domain,
      status: d.status,
      legacy: d.legacy,
      dkim_verified: d.dkim_verified,
      records: recordSpecs(d.domain, d.token, d.dkim_public_key, names).map((spec) => {
        const c = checks.get(spec.purpose);
        return { ...spec, value: c?.value ?? spec.value, status: c?.status ?? null, note: c?.note ?? null };
      }),
      created_at: d.created_at,
      verified_at: d.verified_at,
      checked_at: d.checked_at,
      history: d.history,
    };
  }

  async function find(ws: Workspace, name: string): Promise<Domain> {
    const domain = normalizeDomain(name, names);
    const d = await store.domains.get(ws.id, domain);
    if (!d) throw new SvcError('not_found', `domain ${domain} not found in workspace '${ws.name}'`);
    return d;
  }

  /**
   * Checks the five records now and stores what was found; verifies the domain when all pass.
   * `keep: false`: a check with settings of this run only (another DNS server, another service
   * domain), which says what it found and stores nothing: the record is the instance's view.
   */
  async function check(d: Domain, keep = true): Promise<{ domain: Domain; passed: boolean; unanswered: CheckResult['unanswered'] }> {
    const at = clock.now().toISOString();
    const save = async (verifiedElsewhere: boolean) => {
      const r = await checkDomain(d, dns, names, verifiedElsewhere, at);
      if (!keep) {
        const status = d.status === 'verified' || (r.passed && !verifiedElsewhere) ? ('verified' as const) : d.status;
        return { domain: { ...d, records: r.records, status, checked_at: at }, passed: r.passed, unanswered: r.unanswered };
      }
      const dkimRecord = r.records.find((x) => x.purpose === 'dkim')!;
      // A DNS failure leaves the last answer standing: a time-out must not stop signing.
      const dkim = r.dkimPublished ?? d.dkim_verified;
      // A verified domain whose DKIM record broke: its mail is sent unsigned from now on (signed,
      // it would fail DKIM at receivers) and the daemon shows a fault until the record is fixed.
      if (d.status === 'verified' && d.dkim_verified && !dkim) {
        deps.log.error(
          `domain ${d.domain}: its DKIM record svc1._domainkey no longer checks out (${dkimRecord.status}${dkimRecord.note ? `: ${dkimRecord.note}` : ''}); its mail goes unsigned until it is fixed (svc domains show ${d.domain})`,
        );
      }
      const saved = await store.domains.saveCheck(d.id, {
        records: r.records,
        changes: r.changes,
        dkim_verified: dkim,
        checked_at: at,
        verify: r.passed,
      });
      return { domain: saved, passed: r.passed, unanswered: r.unanswered };
    };
    const owner = await store.domains.verifiedBy(d.domain);
    try {
      return await save(owner !== null && owner !== d.workspace_id);
    } catch (e) {
      if (!(isSvcError(e) && e.kind === 'conflict')) throw e;
      // Another workspace verified it between our look-up and our save: the first one wins.
      return save(true);
    }
  }

  return {
    view,

    async add(ws: Workspace, name: string, opts: { legacyVerified?: boolean } = {}): Promise<DomainView> {
      assertWritable(ws, clock.now());
      const domain = normalizeDomain(name, names);
      const keys = await newDkimKeyPair();
      const now = clock.now().toISOString();
      const d = createdOrLimit(
        await store.domains.create(
          {
            id: random.uuid(),
            workspace_id: ws.id,
            domain,
            status: opts.legacyVerified ? 'verified' : 'pending',
            token: random.bytes(16).toString('hex'),
            dkim_public_key: keys.publicKey,
            dkim_private_key: keys.privateKey,
            legacy: opts.legacyVerified ?? false,
            dkim_verified: false,
            records: null,
            history: [],
            created_at: now,
            verified_at: opts.legacyVerified ? now : null,
            checked_at: null,
          },
          limitFor(ws, 'domains'),
        ),
        ws,
        upgradeUrlOf(config, ws),
      );
      return view(d);
    },

    async list(ws: Workspace): Promise<DomainView[]> {
      return (await store.domains.listByWorkspace(ws.id)).map(view);
    },

    async show(ws: Workspace, name: string): Promise<DomainView> {
      return view(await find(ws, name));
    },

    /** `unanswered`: the records DNS did not answer for (not checked: the caller could not tell). */
    async verify(
      ws: Workspace,
      name: string,
      opts: { keep?: boolean } = {},
    ): Promise<{ view: DomainView; passed: boolean; unanswered: CheckResult['unanswered'] }> {
      const r = await check(await find(ws, name), opts.keep ?? true);
      return { view: view(r.domain), passed: r.passed, unanswered: r.unanswered };
    },

    async remove(
      ws: Workspace,
      name: string,
      opts: { force?: boolean } = {},
    ): Promise<{ id: string; domain: string; addresses_removed: number }> {
      const d = await find(ws, name);
      const addresses = (await store.addresses.listByWorkspace(ws.id)).filter((a) => a.domain_id === d.id);
      if (addresses.length && !opts.force) {
        throw new SvcError('conflict', `domain ${d.domain} has ${addresses.length} address(es); remove them first or use --force`);
      }
      await store.domains.remove(ws.id, d.id);
      return { id: d.id, domain: d.domain, addresses_removed: addresses.length };
    },

    /**
     * The daemon's periodic re-check: every domain, a few at a time. Returns how many passed, and
     * the verified domains whose DKIM key is no longer published (their mail goes unsigned).
     */
    async recheckAll(concurrency = 8): Promise<{ checked: number; passed: number; failed: number; unsigned: string[]; damaged: string[] }> {
      const out = { checked: 0, passed: 0, failed: 0, unsigned: [] as string[], damaged: [] as string[] };
      await mapLimit(await store.domains.listAll(), concurrency, async (d) => {
        let now = d;
        try {
          const r = await check(d);
          now = r.domain;
          out.checked++;
          if (r.passed) out.passed++;
        } catch (e) {
          out.failed++;
          deps.log.warn(`re-check of ${d.domain} failed: ${(e as Error).message}`);
        }
        if (dkimBroken(now)) out.unsigned.push(now.domain);
        if (d.key_damaged) out.damaged.push(d.domain);
      });
      out.unsigned.sort();
      out.damaged.sort();
      return out;
    },
  };
}

export type DomainService = ReturnType<typeof domainService>;

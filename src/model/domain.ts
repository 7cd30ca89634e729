// Sending domains and the five DNS records each publishes (spec.md "Prerequisites for sending"):
// their purposes and statuses in the spec's order, the last check of each and its history.
export const PURPOSES = ['ownership', 'mx', 'spf', 'dkim', 'dmarc'] as const;
export type Purpose = (typeof PURPOSES)[number];

export const RECORD_STATUSES = ['Verified', 'Waiting', 'Problem', 'Recommended'] as const;
export type RecordStatus = (typeof RECORD_STATUSES)[number];
export const passes = (s: RecordStatus | null) => s === 'Verified' || s === 'Recommended';

/**
 * A verified domain whose DKIM key was published and no longer is: its mail goes unsigned. (A
 * legacy domain that never published it was always unsigned: that is its normal state, no fault.)
 */
export const dkimBroken = (d: Pick<Domain, 'status' | 'dkim_verified' | 'legacy' | 'history' | 'key_damaged'>) =>
  !d.key_damaged &&
  d.status === 'verified' &&
  !d.dkim_verified &&
  (!d.legacy || d.history.some((h) => h.purpose === 'dkim' && passes(h.from)));

/** The DKIM selector every domain publishes its key under. */
export const DKIM_SELECTOR = 'svc1';

/** Record changes kept per domain (the newest). */
export const HISTORY_LIMIT = 100;

/** The last check of one of a domain's five records. */
export interface RecordCheck {
  purpose: Purpose;
  status: RecordStatus;
  note: string | null;
  /** What to publish when it differs from the default value (a merged SPF record). */
  value: string | null;
  checked_at: string;
}

/** A change of a record's status between two checks, kept so that regressions stay visible. */
export interface RecordChange {
  at: string;
  purpose: Purpose;
  from: RecordStatus | null;
  to: RecordStatus;
  note: string | null;
}

export interface Domain {
  id: string;
  workspace_id: string;
  /** Lowercase ASCII (punycode). */
  domain: string;
  status: 'pending' | 'verified';
  /** Ownership token: svc-verify=<token> at _svc. */
  token: string;
  /** base64 SPKI DER of the DKIM public key (the p= value). */
  dkim_public_key: string;
  /** PKCS#8 PEM; never leaves the store except to sign. */
  dkim_private_key: string;
  /** Verified before the five-record scheme (kept working; signed with its own key once DKIM checks out). */
  legacy: boolean;
  /** Whether the last check found our DKIM key published. */
  dkim_verified: boolean;
  /**
   * Set on reading, never stored: the stored private key cannot be decrypted (damaged). The domain
   * then reads as not signing (no key, dkim_verified false) and the daemon shows a `dkim_key`
   * fault; every other domain goes on as before.
   */
  key_damaged?: true;
  /** null before the first check. */
  records: RecordCheck[] | null;
  history: RecordChange[];
  created_at: string;
  verified_at: string | null;
  checked_at: string | null;
}

/**
 * A copy of a domain the caller may change: its records and history are arrays of flat objects, so
 * spreads copy it whole. Every send reads its sender's domain twice (the relay at MAIL FROM and the
 * pipeline), and a generic deep copy of it (the DKIM key, five records, up to HISTORY_LIMIT changes)
 * was 4-7 % of the relay's main thread.
 */
export function copyDomain(d: Domain): Domain {
  return { ...d, records: d.records && d.records.map((r) => ({ ...r })), history: d.history.map((h) => ({ ...h })) };
}

export interface DomainCheck {
  records: RecordCheck[];
  changes: RecordChange[];
  dkim_verified: boolean;
  checked_at: string;
  /** All five passed: mark the domain verified, unless another workspace has it verified. */
  verify: boolean;
}

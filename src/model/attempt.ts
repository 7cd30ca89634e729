// One hand-off attempt of one message record, as `svc messages explain` shows it: the host tried,
// whether TLS was on, how long it took, the remote reply, and the signature the copy carried. Kept
// short (a reply is cut at REPLY_MAX), at most ATTEMPTS_KEPT per record, and removed with the
// record by retention.
export const REPLY_MAX = 500;
export const ATTEMPTS_KEPT = 20;

export interface DeliveryAttempt {
  id: string;
  workspace_id: string;
  message_id: string;
  /** 1 for the first attempt. */
  attempt: number;
  at: string;
  duration_ms: number;
  /** The host that answered last (an MX, or the smarthost); null when none was reached. */
  host: string | null;
  ip: string | null;
  /** Whether the session ran over TLS; null when no session was made. */
  tls: boolean | null;
  /** sent, permanent, rejected, failed, temporary or hop (bounce-class.ts). */
  outcome: string;
  class: string | null;
  reply: string;
  /** The DKIM signature of the copy: its domain, selector and signed header names; null unsigned. */
  dkim: { domain: string; selector: string; headers: string } | null;
}

/** Where a message came in: the key that sent it (its id and recognisable prefix), its Idempotency-Key. */
export interface Arrival {
  key_id: string | null;
  key_prefix: string | null;
  idempotency_key: string | null;
}

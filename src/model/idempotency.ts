// Idempotency-Key claims (spec.md "Idempotency"): what a replayed request is answered with.

/** What a completed idempotent request answers when it is replayed. */
export interface StoredResponse {
  status: number;
  body: unknown;
}

/** `fingerprint`: that of the request holding the key, when it gave one. */
export type IdempotencyClaim =
  | { state: 'claimed' }
  | { state: 'running'; fingerprint?: string }
  | { state: 'completed'; response: StoredResponse; fingerprint?: string };

// An address the workspace never sends to again (spec.md "Suppression list").
export interface Suppression {
  workspace_id: string;
  /** Lowercase. */
  address: string;
  reason: 'bounce' | 'complaint' | 'unsubscribe' | 'manual';
  detail: string | null;
  created_at: string;
  /** A bounce's evidence: the message that bounced and the kind of refusal (bad-mailbox, ...). */
  message_id?: string;
  class?: string;
}

/** The error of a record not sent because its address is suppressed (at accept, or found at hand-off). */
export const suppressedError = (address: string, s: Suppression): string =>
  `not sent: ${address} is on the suppression list (${s.reason}${s.detail ? `: ${s.detail}` : ''}, since ${s.created_at})`;

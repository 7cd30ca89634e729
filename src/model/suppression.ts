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

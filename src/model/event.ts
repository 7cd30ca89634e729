// Message events (spec.md "Events"): their names, what an endpoint subscribes to, and the outbox
// entry a state change writes in the same store call as the change.
import type { Message } from './message.js';

export const SENT_EVENTS = ['message.sent', 'message.bounced', 'message.opened', 'message.clicked'] as const;
/** May be subscribed to, never sent (spec.md). */
export const RESERVED_EVENTS = ['message.delivered', 'message.complained', 'message.unsubscribed'] as const;
/** Every message event, now and later: the default subscription. */
export const ALL_MESSAGE_EVENTS = 'message.*';

export type WebhookEvent = (typeof SENT_EVENTS)[number];

export function endpointWants(subscribed: string[], event: string): boolean {
  return subscribed.includes(event) || (event.startsWith('message.') && subscribed.includes(ALL_MESSAGE_EVENTS));
}

/** A state change that must reach webhooks, written in the same store call as the change. */
export interface OutboxEvent {
  id: string;
  workspace_id: string;
  event: WebhookEvent;
  message_id: string;
  payload: Record<string, unknown>;
  created_at: string;
}

/** Webhook payloads (spec.md "Events"): message_id is the id the API returns; no recipient. */
export function sentEvent(id: string, m: Message, at: string): OutboxEvent {
  return {
    id,
    workspace_id: m.workspace_id,
    event: 'message.sent',
    message_id: m.id,
    payload: { message_id: m.id, from: m.from, subject: m.subject },
    created_at: at,
  };
}

export function bouncedEvent(id: string, m: Message, at: string): OutboxEvent {
  return {
    id,
    workspace_id: m.workspace_id,
    event: 'message.bounced',
    message_id: m.id,
    payload: { message_id: m.id, from: m.from, subject: m.subject, error: m.error },
    created_at: at,
  };
}

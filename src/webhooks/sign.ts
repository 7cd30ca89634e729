// The signed request of spec.md "Events": the JSON body, and X-Svc-Signature = sha256= + the
// lowercase hex HMAC-SHA256 of the raw body keyed with the endpoint's secret. For a grace period
// after a rotation (svc webhooks rotate-secret --grace), X-Svc-Signature-Previous carries the same
// signature made with the secret before it, so a receiver still checking the old secret accepts it.
import { createHmac } from 'node:crypto';
import type { Random } from '../clock.js';

export const SECRET_PREFIX = 'whsec_';
export const USER_AGENT = 'Svc-Webhook/1.0';

export const newSecret = (random: Random) => SECRET_PREFIX + random.bytes(24).toString('base64url');

export const signature = (secret: string, raw: string | Buffer) => `sha256=${createHmac('sha256', secret).update(raw).digest('hex')}`;

/** The body: event and timestamp (Unix seconds, at sending) first, then the event's fields. */
export function webhookBody(event: string, payload: Record<string, unknown>, now: Date): string {
  return JSON.stringify({ event, timestamp: Math.floor(now.getTime() / 1000), ...payload });
}

export function webhookHeaders(event: string, secret: string, body: string, previous: string | null = null): Record<string, string> {
  return {
    'content-type': 'application/json',
    'user-agent': USER_AGENT,
    'x-svc-event': event,
    'x-svc-signature': signature(secret, body),
    ...(previous ? { 'x-svc-signature-previous': signature(previous, body) } : {}),
  };
}

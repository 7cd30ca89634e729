// What a customer runs to check one of our webhooks (docs/webhooks.md "Verifying webhooks" shows this code):
// hash the raw bytes, compare in constant time, reject old timestamps (spec.md "Events").
// Self-contained on purpose, so it can be copied as it is.
import { createHmac, timingSafeEqual } from 'node:crypto';

export type Verified = { ok: true; event: Record<string, unknown> } | { ok: false; reason: string };

export function verifyWebhook(
  rawBody: Buffer | string,
  signatureHeader: string | undefined,
  secret: string,
  opts: { toleranceSeconds?: number; now?: number } = {},
): Verified {
  const expected = Buffer.from(`sha256=${createHmac('sha256', secret).update(rawBody).digest('hex')}`);
  const given = Buffer.from(signatureHeader ?? '');
  // timingSafeEqual needs equal lengths; a wrong length is a mismatch, decided without comparing.
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return { ok: false, reason: 'signature mismatch' };
  let event: Record<string, unknown>;
  try {
    event = JSON.parse(rawBody.toString()) as Record<string, unknown>;
  } catch {
    return { ok: false, reason: 'body is not JSON' };
  }
  const now = opts.now ?? Math.floor(Date.now() / 1000);
  const age = now - Number(event.timestamp);
  if (!Number.isFinite(age) || Math.abs(age) > (opts.toleranceSeconds ?? 300))
    return { ok: false, reason: 'timestamp too old (or in the future)' };
  return { ok: true, event };
}

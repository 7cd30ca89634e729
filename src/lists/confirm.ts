// Double opt-in's confirmation link: {base_url}/c/CODE, where CODE is the subscriber's token, when
// the link expires (7 days after it was sent) and an HMAC of both under the service's own key
// (store.secrets, shared by every daemon of the store). A changed token, time or signature is no
// link at all; an expired one says so.
import { createHmac, timingSafeEqual } from 'node:crypto';

export const CONFIRM_PATH = '/c/';
/** The name the signing key is kept under. */
export const CONFIRM_KEY = 'list-confirmations';
/** A confirmation link works this long after it is sent. */
export const CONFIRM_DAYS = 7;
/** A pending subscriber posted again within this gets no second email. */
export const CONFIRM_RESEND_MS = 3600_000;

const CODE = /^([A-Za-z0-9_-]{43})\.(\d{10})\.([A-Za-z0-9_-]{43})$/;
const sign = (key: string, token: string, expires: number) =>
  createHmac('sha256', key).update(`confirm\n${token}\n${expires}`).digest('base64url');

export function confirmCode(key: string, token: string, expires: number): string {
  return `${token}.${expires}.${sign(key, token, expires)}`;
}

/** The subscriber token a code confirms, `expired`, or null when the service did not sign it. */
export function readConfirmCode(key: string, code: string, nowSeconds: number): { token: string } | 'expired' | null {
  const m = CODE.exec(code);
  if (!m) return null;
  const [, token, exp, sig] = m as unknown as [string, string, string, string];
  const want = Buffer.from(sign(key, token, Number(exp)));
  const got = Buffer.from(sig);
  if (got.length !== want.length || !timingSafeEqual(got, want)) return null;
  return Number(exp) < nowSeconds ? 'expired' : { token };
}

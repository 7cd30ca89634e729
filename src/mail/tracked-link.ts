// Tracked links (broadcasts and sequences; API-sent mail keeps its links, spec.md rule 7): each
// link of a copy becomes {base_url}/t/c/TOKEN/SIGNATURE?u=URL, the signature an HMAC of the copy's
// token and the URL under the service's own key, so the redirect goes only where the service
// itself pointed: a changed URL, token or signature is 404 (never an open redirect).
import { createHmac, timingSafeEqual } from 'node:crypto';

/** The name the key is kept under (store.secrets). */
export const LINK_KEY = 'tracked-links';

const sign = (key: string, token: string, url: string) =>
  createHmac('sha256', key).update(`${token}\n${url}`).digest('base64url').slice(0, 32);

/**
 * Only absolute http(s) links are tracked (and redirected to), and never one with a control
 * character: a CR or LF cannot go into a Location header (it was a 500), and the URL parser would
 * silently drop it and send the reader somewhere the link does not say.
 */
export function trackable(url: string): boolean {
  if (/[\x00-\x1f\x7f]/.test(url)) return false;
  try {
    const u = new URL(url);
    return (u.protocol === 'http:' || u.protocol === 'https:') && /^https?:\/\//i.test(url);
  } catch {
    return false;
  }
}

export function trackedLink(baseUrl: string, key: string, token: string, url: string): string {
  return `${baseUrl}/t/c/${token}/${sign(key, token, url)}?u=${encodeURIComponent(url)}`;
}

/** The URL a tracked link goes to, or null when anything of it is not what the service signed. */
export function linkTarget(key: string, token: string, signature: string, url: string | undefined): string | null {
  if (url === undefined || !trackable(url)) return null;
  const want = Buffer.from(sign(key, token, url));
  const got = Buffer.from(signature);
  return got.length === want.length && timingSafeEqual(got, want) ? url : null;
}

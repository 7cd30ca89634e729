// The pages of list links (CONTRACT.md "Tracking and unsubscribe"; double opt-in): small, plain
// HTML that loads nothing remote and sends no tracking. A GET shows a question whose button posts to
// the same URL (so a link scanner's GET never unsubscribes or confirms anyone); the POST shows that
// it is done. A forged or altered link gets the same page shape with 404.
import { html, type Html } from '../../src/html.js';

/** Nothing remote, no scripts, forms only to this origin; never cached, never indexed, no referrer. */
export const PAGE_HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'cache-control': 'no-store',
  'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  'referrer-policy': 'no-referrer',
  'x-robots-tag': 'noindex',
  'x-content-type-options': 'nosniff',
};

function page(title: string, body: Html): string {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
<style>body{font:1rem/1.5 system-ui,sans-serif;max-width:32rem;margin:3rem auto;padding:0 1rem;color:#111;background:#fff}button{font:inherit;padding:.5rem 1rem;cursor:pointer}</style>
</head>
<body>
<main>
<h1>${title}</h1>
${body}
</main>
</body>
</html>
`.text;
}

export const confirmPage = (list: string, email: string): string =>
  page(
    'Unsubscribe',
    html`<p>Stop receiving <strong>${list}</strong> at ${email}?</p>
<form method="post"><input type="hidden" name="List-Unsubscribe" value="One-Click"><button type="submit">Unsubscribe</button></form>`,
  );

export const donePage = (list: string, email: string): string =>
  page('You are unsubscribed', html`<p>${email} will receive no more mail from <strong>${list}</strong>.</p>`);

export const unknownPage = (): string => page('Link not valid', html`<p>This link is not valid. It may have been copied incompletely.</p>`);

export const confirmSubscriptionPage = (list: string, email: string): string =>
  page(
    'Confirm your subscription',
    html`<p>Receive <strong>${list}</strong> at ${email}?</p>
<form method="post"><button type="submit">Confirm my subscription</button></form>`,
  );

export const confirmedPage = (list: string, email: string): string =>
  page('Subscription confirmed', html`<p>${email} will receive <strong>${list}</strong>.</p>`);

/** A confirmation of a subscriber who unsubscribed since: nothing happens. */
export const cancelledPage = (list: string, email: string): string =>
  page('Not subscribed', html`<p>${email} unsubscribed from <strong>${list}</strong>; this link does not subscribe it again.</p>`);

export const expiredPage = (): string =>
  page('Link expired', html`<p>This confirmation link has expired. Subscribe again to get a new one.</p>`);

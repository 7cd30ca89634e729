// The MX's trace field (RFC 5321 §4.4: a receiving server MUST prepend a Received: line), as
// Postfix writes it: who connected (the name it gave, its reverse name and address), who took it,
// over what, for whom. Everything the client said is cut to printable ASCII: a trace field carries
// no line breaks or controls from outside.
import type { Envelope } from './receive.js';

const printable = (s: string, max = 255) => s.replace(/[^\x21-\x7e]/g, '').slice(0, max);

/** RFC 5322 date-time in UTC ("Tue, 24 Nov 2026 12:00:00 +0000"). */
export const rfc5322Date = (d: Date) => d.toUTCString().replace(/GMT$/, '+0000');

export function traceHeader(env: Envelope, mxHost: string, now: Date): string {
  const helo = printable(env.helo ?? '') || 'unknown';
  const rdns = env.clientHostname && !/^\[/.test(env.clientHostname) ? `${printable(env.clientHostname)} ` : '';
  const ip = env.remoteIp ? `[${printable(env.remoteIp, 64)}]` : '[unknown]';
  const id = env.id ? ` id ${printable(env.id, 64)}` : '';
  const rcpt = env.recipients.length === 1 ? `\r\n\tfor <${printable(env.recipients[0]!.address)}>` : '';
  return `Received: from ${helo} (${rdns}${ip})\r\n\tby ${mxHost} (svc) with ${env.tls ? 'ESMTPS' : 'ESMTP'}${id}${rcpt};\r\n\t${rfc5322Date(now)}\r\n`;
}

// Talking to the inbound MX the way another server does: one SMTP transaction over a raw socket,
// every reply kept (the codes are the test), and messages other servers send us (a reply, an
// out-of-office, delivery status and complaint reports).
import { RawSmtp } from './smtp-client.js';

export interface Transaction {
  ehlo: string;
  mail: string;
  rcpts: string[];
  /** DATA's reply (the 354's, when no recipient was taken). */
  data: string;
  /** The reply after the message ('' when DATA was not taken). */
  end: string;
}

/** MAIL FROM, each RCPT TO, DATA and the message, then QUIT; the replies in order. */
export async function transact(url: string, from: string, to: string[], message: string | Buffer): Promise<Transaction> {
  const { client } = await RawSmtp.open(url);
  try {
    const ehlo = await client.cmd('EHLO sender.test');
    const mail = await client.cmd(`MAIL FROM:<${from}>`);
    const rcpts: string[] = [];
    for (const r of to) rcpts.push(await client.cmd(`RCPT TO:<${r}>`));
    const data = await client.cmd('DATA');
    let end = '';
    if (data.startsWith('354')) {
      const body = Buffer.isBuffer(message) ? message : Buffer.from(message);
      const reply = client.reply();
      client.write(Buffer.concat([body, Buffer.from(body.subarray(-2).toString() === '\r\n' ? '.\r\n' : '\r\n.\r\n')]));
      end = (await reply).join('\n');
    }
    await client.cmd('QUIT');
    return { ehlo, mail, rcpts, data, end };
  } finally {
    client.destroy();
  }
}

const lines = (...l: string[]) => l.join('\r\n') + '\r\n';

export function replyTo(from: string, to: string, inReplyTo: string, extra: string[] = []): string {
  return lines(
    `From: Jane <${from}>`,
    `To: ${to}`,
    'Subject: Re: Hello',
    `Message-ID: <${Math.random().toString(36).slice(2)}@rcpt.test>`,
    `In-Reply-To: <${inReplyTo}>`,
    `References: <${inReplyTo}>`,
    ...extra,
    '',
    'Thanks, that helps.',
  );
}

export function plainMail(from: string, to: string, subject = 'Question'): string {
  return lines(
    `From: ${from}`,
    `To: ${to}`,
    `Subject: ${subject}`,
    `Message-ID: <${Math.random().toString(36).slice(2)}@elsewhere.test>`,
    '',
    'Hello there.',
  );
}

/**
 * A multipart/report (RFC 6522) as a reporting server sends it: `headers`, a human-readable part,
 * the machine-readable part of `type` with `fields`, and the original (`originalType`: its headers
 * alone, or the whole message).
 */
function report(opts: {
  reportType: string;
  headers: string[];
  human: string;
  type: string;
  fields: string[];
  originalType: string;
  original: string[];
}): string {
  const b = `${opts.reportType.toUpperCase()}-BOUNDARY`;
  return lines(
    ...opts.headers,
    'MIME-Version: 1.0',
    `Content-Type: multipart/report; report-type=${opts.reportType}; boundary="${b}"`,
    '',
    `--${b}`,
    'Content-Type: text/plain',
    '',
    opts.human,
    '',
    `--${b}`,
    `Content-Type: ${opts.type}`,
    '',
    ...opts.fields,
    '',
    `--${b}`,
    `Content-Type: ${opts.originalType}`,
    '',
    ...opts.original,
    '',
    `--${b}--`,
  );
}

/** An RFC 3464 report about `original` (its Message-ID), for `recipient`. */
export function dsn(
  recipient: string,
  originalMessageId: string | null,
  action: 'failed' | 'delayed',
  status: string,
  diagnostic: string,
): string {
  return report({
    reportType: 'delivery-status',
    headers: [
      'From: Mail Delivery System <mailer-daemon@rcpt.test>',
      'To: hello@acme.test',
      'Subject: Undelivered Mail Returned to Sender',
      'Auto-Submitted: auto-replied',
    ],
    human: 'Your message could not be delivered.',
    type: 'message/delivery-status',
    fields: [
      'Reporting-MTA: dns; mx.rcpt.test',
      '',
      `Final-Recipient: rfc822; ${recipient}`,
      `Action: ${action}`,
      `Status: ${status}`,
      `Diagnostic-Code: smtp; ${diagnostic}`,
    ],
    originalType: 'text/rfc822-headers',
    original: [
      'From: hello@acme.test',
      `To: ${recipient}`,
      ...(originalMessageId ? [`Message-ID: <${originalMessageId}>`] : []),
      'Subject: Hello',
    ],
  });
}

/**
 * An RFC 5965 report about `original`, sent to `recipient`: `type` (default abuse); `redacted`
 * leaves out Original-Rcpt-To and the original's To (as providers that redact do).
 */
export function arf(
  recipient: string,
  originalMessageId: string | null,
  opts: { type?: string; redacted?: boolean; from?: string } = {},
): string {
  return report({
    reportType: 'feedback-report',
    headers: [`From: ${opts.from ?? 'feedback@isp.test'}`, 'To: hello@acme.test', 'Subject: Complaint'],
    human: 'This is an abuse report.',
    type: 'message/feedback-report',
    fields: [
      `Feedback-Type: ${opts.type ?? 'abuse'}`,
      'User-Agent: isp-fbl/1.0',
      'Version: 1',
      ...(opts.redacted ? [] : [`Original-Rcpt-To: <${recipient}>`]),
    ],
    originalType: 'message/rfc822',
    original: [
      'From: hello@acme.test',
      `To: ${opts.redacted ? 'redacted@redacted' : recipient}`,
      ...(originalMessageId ? [`Message-ID: <${originalMessageId}>`] : []),
      'Subject: Hello',
      '',
      'Body.',
    ],
  });
}

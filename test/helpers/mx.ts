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
  return lines(`From: Jane <${from}>`, `To: ${to}`, 'Subject: Re: Hello', `Message-ID: <${Math.random().toString(36).slice(2)}@rcpt.test>`, `In-Reply-To: <${inReplyTo}>`, `References: <${inReplyTo}>`, ...extra, '', 'Thanks, that helps.');
}

export function plainMail(from: string, to: string, subject = 'Question'): string {
  return lines(`From: ${from}`, `To: ${to}`, `Subject: ${subject}`, `Message-ID: <${Math.random().toString(36).slice(2)}@elsewhere.test>`, '', 'Hello there.');
}

/** An RFC 3464 report about `original` (its Message-ID), for `recipient`. */
export function dsn(recipient: string, originalMessageId: string | null, action: 'failed' | 'delayed', status: string, diagnostic: string): string {
  const b = 'REPORT-BOUNDARY';
  return lines(
    'From: Mail Delivery System <mailer-daemon@rcpt.test>',
    'To: hello@acme.test',
    'Subject: Undelivered Mail Returned to Sender',
    'Auto-Submitted: auto-replied',
    'MIME-Version: 1.0',
    `Content-Type: multipart/report; report-type=delivery-status; boundary="${b}"`,
    '',
    `--${b}`,
    'Content-Type: text/plain',
    '',
    'Your message could not be delivered.',
    '',
    `--${b}`,
    'Content-Type: message/delivery-status',
    '',
    'Reporting-MTA: dns; mx.rcpt.test',
    '',
    `Final-Recipient: rfc822; ${recipient}`,
    `Action: ${action}`,
    `Status: ${status}`,
    `Diagnostic-Code: smtp; ${diagnostic}`,
    '',
    `--${b}`,
    'Content-Type: text/rfc822-headers',
    '',
    'From: hello@acme.test',
    `To: ${recipient}`,
    ...(originalMessageId ? [`Message-ID: <${originalMessageId}>`] : []),
    'Subject: Hello',
    '',
    `--${b}--`,
  );
}

/** An RFC 5965 abuse report about `original`, sent to `recipient`. */
export function arf(recipient: string, originalMessageId: string): string {
  const b = 'ARF-BOUNDARY';
  return lines(
    'From: feedback@isp.test',
    'To: hello@acme.test',
    'Subject: Complaint',
    'MIME-Version: 1.0',
    `Content-Type: multipart/report; report-type=feedback-report; boundary="${b}"`,
    '',
    `--${b}`,
    'Content-Type: text/plain',
    '',
    'This is an abuse report.',
    '',
    `--${b}`,
    'Content-Type: message/feedback-report',
    '',
    'Feedback-Type: abuse',
    'User-Agent: isp-fbl/1.0',
    'Version: 1',
    `Original-Rcpt-To: <${recipient}>`,
    '',
    `--${b}`,
    'Content-Type: message/rfc822',
    '',
    'From: hello@acme.test',
    `To: ${recipient}`,
    `Message-ID: <${originalMessageId}>`,
    'Subject: Hello',
    '',
    'Body.',
    '',
    `--${b}--`,
  );
}

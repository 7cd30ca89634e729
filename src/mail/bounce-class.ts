// src/send/: the one pipeline (pipeline.ts), delivery (composition in compose/, DKIM, SMTP
// hand-off, outcomes).
//
// What a refusal means, from the reply's enhanced status code (RFC 3463),
// its text when it has none, the SMTP stage it came at, and whose server said it. Only a reply that
// says the mailbox or the domain is bad suppresses the recipient; a refusal of the message (policy,
// reputation, content, a refusal at MAIL FROM or after DATA) bounces it without suppressing anyone;
// a full mailbox is tried again; and a failure of our own next hop (the smarthost refusing our
// login or our sender, TLS that does not work) is never the recipient's bounce: the mail waits and
// the fault is made loud.
/** What became of one recipient in one attempt. */
export type RecipientOutcome = 'sent' | 'permanent' | 'rejected' | 'failed' | 'temporary' | 'hop';

/** Where in the SMTP session the reply came. */
export type Stage = 'connect' | 'tls' | 'auth' | 'mail' | 'rcpt' | 'data';

export interface Classified {
  outcome: RecipientOutcome;
  /** Kept with a bounce and a suppression as evidence: bad-mailbox, bad-domain, policy, ... */
  class: string;
}

/** The stage of a nodemailer SMTPConnection error (its `command` and `code`). */
export function stageOf(e: { command?: string; code?: string; message?: string }): Stage {
  const c = (e.command ?? '').toUpperCase();
  if (c.startsWith('RCPT')) return 'rcpt';
  if (c.startsWith('MAIL')) return 'mail';
  if (c.startsWith('AUTH')) return 'auth';
  if (c === 'DATA' || e.code === 'EMESSAGE') return 'data';
  // A failed handshake surfaces as ETLS, or as a socket error carrying OpenSSL's words.
  if (c === 'STARTTLS' || e.code === 'ETLS' || (e.code === 'ESOCKET' && /\b(ssl|tls|certificate|handshake|alert)\b/i.test(e.message ?? '')))
    return 'tls';
  return 'connect';
}

const ENHANCED = /^\s*(?:\d{3}[ -])?([245])\.(\d{1,3})\.(\d{1,3})\b/;
const BAD_MAILBOX =
  /no such (user|mailbox|recipient)|user unknown|unknown (user|recipient|mailbox)|mailbox (unavailable|not found|does not exist)|does not exist|invalid (recipient|mailbox|address)|recipient (address )?rejected: user|address rejected: user|no mailbox/i;
const FULL = /mailbox (is )?full|over ?quota|quota exceeded|insufficient (storage|space)/i;

/**
 * A smarthost that refuses, at RCPT, our envelope sender or relaying at all (Postfix's
 * reject_sender_login_mismatch and relay checks, Exchange's 5.7.54 and 5.7.64, SendAs refusals):
 * every recipient would meet the same refusal; it says nothing of the recipient.
 */
const RELAY_DENIED = /relay access denied|relaying (is )?denied|not permitted to relay|unable to relay/i;
const HOP_AT_RCPT =
  /sender address rejected|\b5\.7\.(54|64)\b|not owned by (the )?(authenticated )?user|sendas(deny|denied)|not authori[sz]ed to send (as|on behalf)/i;

/**
 * `sender`: the envelope sender we gave (MAIL FROM); a smarthost's 5.7.x at RCPT that names it
 * refuses our sender, not the recipient.
 */
export function classifyReply(
  reply: { code?: number; text: string; stage: Stage; sender?: string },
  route: 'direct' | 'smarthost',
): Classified {
  const { code, text, stage } = reply;
  // Our own next hop: we could not hand the mail over at all. Not the recipient's doing.
  if (route === 'smarthost' && stage !== 'rcpt' && stage !== 'data') return { outcome: 'hop', class: `hop-${stage}` };
  if (route === 'smarthost' && stage === 'rcpt' && code !== undefined) {
    const namesSender =
      reply.sender !== undefined &&
      reply.sender !== '' &&
      /\b5\.7\.\d{1,3}\b/.test(text) &&
      text.toLowerCase().includes(reply.sender.toLowerCase());
    if (RELAY_DENIED.test(text)) return { outcome: 'hop', class: 'hop-relay' };
    if (namesSender || HOP_AT_RCPT.test(text)) return { outcome: 'hop', class: 'hop-sender' };
  }
  // The server announced (SIZE) that it takes nothing this large: refused before sending it.
  if (code === undefined && /size larger than allowed/i.test(text)) return { outcome: 'rejected', class: 'too-large' };
  if (code === undefined) return { outcome: 'temporary', class: stage === 'tls' ? 'tls' : 'connection' };
  const m = ENHANCED.exec(text);
  const [klass, subject, detail] = m ? [Number(m[1]), Number(m[2]), Number(m[3])] : [Math.floor(code / 100), null, null];
  if (code < 500 || klass === 4) return { outcome: 'temporary', class: subject === 2 && detail === 2 ? 'mailbox-full' : 'deferred' };
  // 5xx from here on.
  if (stage !== 'rcpt') {
    // At the greeting or MAIL FROM, or after DATA: the message (or our sending IP) was refused.
    return { outcome: 'rejected', class: stage === 'data' ? 'content' : stage === 'mail' ? 'sender' : 'policy' };
  }
  if (subject === 1) return { outcome: 'permanent', class: detail === 2 || detail === 10 ? 'bad-domain' : 'bad-mailbox' };
  if (subject === 2 && detail === 1) return { outcome: 'permanent', class: 'mailbox-disabled' };
  if (subject === 2 && detail === 2) return { outcome: 'temporary', class: 'mailbox-full' };
  if (subject !== null)
    return { outcome: 'rejected', class: subject === 7 ? 'policy' : subject === 3 || subject === 6 ? 'content' : 'refused' };
  // No enhanced code: the words decide, and only plain ones suppress.
  if (FULL.test(text)) return { outcome: 'temporary', class: 'mailbox-full' };
  if (BAD_MAILBOX.test(text) && (code === 550 || code === 551 || code === 553)) return { outcome: 'permanent', class: 'bad-mailbox' };
  return { outcome: 'rejected', class: 'refused' };
}

// Line ends of a message received over SMTP, made what the rest of svc expects.
/**
 * Bare LF and bare CR line ends become CRLF (Postfix 3.9's default): Python's smtplib and many PHP
 * senders send bare LF. This runs on data smtp-server has already ended at CRLF.CRLF and nowhere
 * else, so a smuggling payload (`\n.\r\n`, `\n.\n`, `\r.\r\n`) stays inside the one message it
 * came in, as text, and is dot-stuffed like any other line when the message is handed on.
 */
export function normalizeLineBreaks(raw: Buffer): Buffer {
  let bare = false;
  for (let i = raw.indexOf(0x0a); i !== -1 && !bare; i = raw.indexOf(0x0a, i + 1)) if (i === 0 || raw[i - 1] !== 0x0d) bare = true;
  for (let i = raw.indexOf(0x0d); i !== -1 && !bare; i = raw.indexOf(0x0d, i + 1)) if (raw[i + 1] !== 0x0a) bare = true;
  if (!bare) return raw;
  return Buffer.from(raw.toString('latin1').replace(/\r\n|\r|\n/g, '\r\n'), 'latin1');
}

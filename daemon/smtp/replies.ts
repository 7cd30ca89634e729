// daemon/smtp/: the SMTP listeners' base (server.ts) and reply table; each listener configures the
// base.
//
// The relay's one reply table: smtp-server's built-in replies rewritten to the codes and texts of
// spec.md "SMTP relay" (for example its "500 Error: command not recognized" is our "502 5.5.2").
// Replies the relay makes itself already carry their enhanced code and pass through.

interface Rule {
  code: number;
  match: RegExp;
  to: [number, string];
}

const RULES: Rule[] = [
  { code: 500, match: /command not recognized/i, to: [502, '5.5.2 Unknown command'] },
  { code: 421, match: /too many unrecognized commands/i, to: [421, '4.7.0 Too many unknown commands, closing connection'] },
  { code: 504, match: /unrecognized authentication type/i, to: [504, '5.5.4 Authentication mechanism not supported: use PLAIN or LOGIN'] },
  { code: 501, match: /invalid userdata/i, to: [501, '5.5.2 Invalid base64 in AUTH argument'] },
  { code: 530, match: /authentication required/i, to: [530, '5.7.0 Authentication required'] },
  { code: 501, match: /address|parameter/i, to: [501, '5.5.4 Invalid FROM or TO address: angle brackets expected'] },
  { code: 552, match: /size|too big|exceed/i, to: [552, '5.3.4 Message too big: 25 MB at most'] },
  // smtp-server closes a connection that speaks before the greeting (pipelining into the banner is
  // what spam engines do), and all of them when it stops.
  { code: 421, match: /talk too soon/i, to: [421, '4.5.0 Protocol error: a command came before the greeting, closing connection'] },
  { code: 421, match: /shutting down/i, to: [421, '4.3.2 Service shutting down, try again later'] },
  { code: 235, match: /./, to: [235, '2.7.0 Authentication successful'] },
  { code: 535, match: /./, to: [535, '5.7.8 Authentication credentials invalid'] },
];

const ENHANCED = /^[245]\.\d{1,3}\.\d{1,3} /;
const CLASS_DEFAULT: Record<number, string> = { 2: '2.0.0', 4: '4.0.0', 5: '5.0.0' };

export function rewriteReply(
  code: number,
  data: string | string[] | undefined,
  context?: string | false,
): { code: number; data: string | string[] | undefined } {
  // Greetings, EHLO/HELO capability lists and 3xx continuations carry no enhanced code; a refusal
  // of an EHLO does, like any other.
  if (
    Array.isArray(data) ||
    code === 220 ||
    (code >= 300 && code < 400) ||
    (code < 300 && typeof context === 'string' && /^(HELO|EHLO|LHLO)$/.test(context))
  )
    return { code, data };
  const text = (data ?? '').toString();
  if (ENHANCED.test(text)) return { code, data: text };
  const rule = RULES.find((r) => r.code === code && r.match.test(text));
  if (rule) return { code: rule.to[0], data: rule.to[1] };
  const plain = text.replace(/^Error:\s*/i, '');
  if (code === 503) return { code, data: `5.5.1 Commands out of order: ${plain}` };
  return { code, data: `${CLASS_DEFAULT[Math.floor(code / 100)] ?? '2.0.0'} ${plain}`.trim() };
}

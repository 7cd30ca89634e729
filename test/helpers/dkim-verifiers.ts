// Independent DKIM verifiers beside mailauth: dkimpy (Debian's python3-dkim) and Mail::DKIM (Debian's
// libmail-dkim-perl), each handed the key record of the signature's selector, so no DNS is asked.
// Each answers 'pass' or 'fail', or null when it is not installed (the caller says it skipped).
import { spawnSync } from 'node:child_process';
import { Resolver } from 'node:dns/promises';
import { dkimVerify } from 'mailauth/lib/dkim/verify.js';
import { headers } from './sink.js';

export type Verdict = 'pass' | 'fail';

/** The key record's name of a message's (first) signature: `SELECTOR._domainkey.DOMAIN`. */
export function keyName(raw: Buffer): string {
  const sig = headers(raw).get('dkim-signature')![0]!;
  return `${/\bs=([^;\s]+)/.exec(sig)![1]}._domainkey.${/\bd=([^;\s]+)/.exec(sig)![1]}`;
}

/** The key record from the test's DNS. */
export async function keyRecord(raw: Buffer, dnsServer: string): Promise<string> {
  const resolver = new Resolver({ timeout: 1000, tries: 1 });
  resolver.setServers([dnsServer]);
  return (await resolver.resolveTxt(keyName(raw)))[0]!.join('');
}

const installed = new Map<string, boolean>();
const has = (cmd: string, args: string[]) => {
  if (!installed.has(cmd + args.join())) {
    const r = spawnSync(cmd, args);
    installed.set(cmd + args.join(), !r.error && r.status === 0);
  }
  return installed.get(cmd + args.join())!;
};

export async function mailauthVerdict(raw: Buffer, txt: string): Promise<Verdict> {
  const name = keyName(raw);
  const r = await dkimVerify(raw, { resolver: async (n: string, type: string) => (type === 'TXT' && n === name ? [[txt]] : []) as never });
  return r.results[0]?.status.result === 'pass' ? 'pass' : 'fail';
}

export function dkimpyVerdict(raw: Buffer, txt: string): Verdict | null {
  if (!has('/usr/bin/python3', ['-c', 'import dkim'])) return null;
  const script =
    'import sys, dkim\nkey = sys.argv[1].encode()\nname = sys.argv[2].encode() + b"."\nmsg = sys.stdin.buffer.read()\nprint(dkim.verify(msg, dnsfunc=lambda n, timeout=5: key if n == name else None))';
  const r = spawnSync('/usr/bin/python3', ['-c', script, txt, keyName(raw)], { input: raw });
  const out = r.stdout.toString().trim();
  if (out !== 'True' && out !== 'False') throw new Error(`dkimpy: ${r.stderr.toString()}`);
  return out === 'True' ? 'pass' : 'fail';
}

export function mailDkimVerdict(raw: Buffer, txt: string): Verdict | null {
  if (!has('perl', ['-MMail::DKIM::Verifier', '-e', '1'])) return null;
  // The key is handed in by replacing the look-up Mail::DKIM makes for it.
  const script = `use strict; use Mail::DKIM::Verifier; use Mail::DKIM::PublicKey;
my $txt = $ARGV[0];
no warnings 'redefine';
*Mail::DKIM::PublicKey::fetch_async = sub {
  my ($class, %p) = @_; my $ok = ($p{Callbacks} || {})->{Success} || sub { $_[0] };
  my $r = $ok->(Mail::DKIM::PublicKey->parse($txt)); return sub { $r } };
my $v = Mail::DKIM::Verifier->new; binmode STDIN;
while (<STDIN>) { s/\\r?\\n\\z/\\015\\012/; $v->PRINT($_) } $v->CLOSE; print $v->result, "\\n";`;
  const r = spawnSync('perl', ['-e', script, txt], { input: raw });
  const out = r.stdout.toString().trim();
  if (!out) throw new Error(`Mail::DKIM: ${r.stderr.toString()}`);
  return out === 'pass' ? 'pass' : 'fail';
}

/** The three verdicts on one message (null: that verifier is not installed). */
export async function verdicts(raw: Buffer, txt: string) {
  return { mailauth: await mailauthVerdict(raw, txt), dkimpy: dkimpyVerdict(raw, txt), 'Mail::DKIM': mailDkimVerdict(raw, txt) };
}

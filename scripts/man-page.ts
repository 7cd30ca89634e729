// man/svc.1, made whole by `npm run docs` from what the binary itself knows: every command's usage
// (the manifest: arguments, summary, options, examples), the settings (ENVIRONMENT) and the error
// registry (ERRORS). It covers the commands; the reference (what each does in depth) is docs/,
// never a second copy here. test/docs.test.ts fails when the file differs from what this makes.
import type { Manifest } from '../commands/manifest.js';
import { errorKinds, type ErrorKind } from '../src/errors.js';
import { manEnvironment } from '../src/settings.js';

/** Text as roff takes it: backslashes and dashes escaped, a line never starting with a dot or a quote. */
export const roff = (s: string) =>
  s
    .replace(/\\/g, '\\e')
    .replace(/-/g, '\\-')
    .replace(/`/g, '')
    .replace(/^([.'])/gm, '\\&$1');

const DOCS: Array<[string, string]> = [
  ['configuration.md', 'settings, the config file, svc init'],
  ['operating.md', 'status, doctor, the queue, the log, metrics, signals, backups, upgrades, running as a service'],
  ['domains.md', 'domains, their five records, addresses'],
  ['sending.md', 'POST /api/v2/emails, delivery, bounces, retries'],
  ['relay.md', 'the SMTP relay'],
  ['tracking.md', 'opens, clicks, explain'],
  ['inbox.md', 'the inbound MX and the team inbox'],
  ['webhooks.md', 'webhooks and their signatures'],
  ['limits.md', 'idempotency, rate limit, quotas, deleting a workspace'],
  ['lists-and-campaigns.md', 'lists, subscribers, broadcasts, sequences'],
  ['people-and-web-app.md', 'people, sign-in, the web app'],
  ['rest-api.md', 'the REST API'],
  ['stores.md', 'the file store and Postgres'],
  ['benchmarks.md', 'the figures and how to measure them'],
];

export function manPage(m: Manifest, version: string): string {
  const out: string[] = [
    `.TH SVC 1 "" "svc ${version}" "svc manual"`,
    '.\\" Made by npm run docs (scripts/man-page.ts) from the commands, the settings and the error registry: do not edit.',
    '.SH NAME',
    'svc \\- self\\-hosted transactional email service: REST API, SMTP relay, inbound MX and webhooks in one binary',
    '.SH SYNOPSIS',
    '.B svc',
    '.RI [ global\\-options ]',
    '.I noun verb',
    '.RI [ arguments ]',
    '.RI [ options ]',
    '.br',
    '.B svc serve',
    '.RI [ options ]',
    '.SH DESCRIPTION',
    '.B svc serve',
    'is the daemon: the JSON REST API under /api/v2, the SMTP relay, the inbound MX with the team',
    'inbox, the tracking and unsubscribe endpoints, the web app under /app/ and the background workers.',
    'Every other command administers the same store. Nouns are plural and verbs follow',
    '.RI ( "svc keys create" );',
    'the singular noun is accepted too. With',
    '.B \\-\\-json',
    'a command prints exactly one JSON document on standard output; without it, tables for people',
    "(coloured on a terminal, never with NO_COLOR). The reference is in the project's docs/ folder",
    '(see SEE ALSO).',
    '.SH GLOBAL OPTIONS',
  ];
  const option = (o: { flags: string; description: string }) => ['.TP', `.B ${roff(o.flags)}`, roff(o.description)];
  for (const o of m.global) out.push(...option(o));
  out.push(
    ...option({
      flags: '--workspace <name>',
      description: 'the workspace of workspace-scoped commands (SVC_WORKSPACE; the only one there is by default)',
    }),
    ...option({ flags: '--json', description: 'print exactly one JSON document on stdout' }),
    ...option({ flags: '--debug', description: 'print stack traces on failure' }),
    ...option({ flags: '-V, --version', description: "print svc's version (svc version says more: its build, Node, the schema)" }),
    ...option({ flags: '-h, --help', description: "a command's usage and examples (svc help NOUN VERB the same)" }),
    '.SH COMMANDS',
  );
  const nouns = new Map<string, typeof m.commands>();
  for (const c of m.commands) nouns.set(c.noun ?? '', [...(nouns.get(c.noun ?? '') ?? []), c]);
  for (const [noun, commands] of nouns) {
    if (noun) out.push(`.SS ${roff(noun)}: ${roff(m.nouns[noun]?.summary ?? '')}`);
    for (const c of commands) {
      const args = (c.args ?? []).map((a) =>
        a
          .replace(/^<(.*)>$/, '$1')
          .replace(/^\[(.*)\]$/, '[$1]')
          .toUpperCase(),
      );
      out.push('.TP', `.B svc ${roff([c.noun, c.verb, ...args].filter(Boolean).join(' '))}`, roff(c.summary));
      if (c.options?.length) {
        out.push('.RS');
        for (const o of c.options) out.push('.TP', `.B ${roff(o.flags)}`, roff(o.description));
        out.push('.RE');
      }
      if (c.examples.length) out.push('.RS', '.nf', ...c.examples.map(roff), '.fi', '.RE');
    }
  }
  out.push('.SH ENVIRONMENT', '.\\" environment: generated from src/settings.ts by npm run docs', manEnvironment(), '.\\" environment end');
  out.push('.SH EXIT STATUS');
  for (const [code, text] of <Array<[string, string]>>[
    ['0', 'Success.'],
    [
      '1',
      'Failure: the reason is one line on standard error, after svc:. A DNS check whose server did not answer is 1: it could not check.',
    ],
    ['2', 'Wrong usage: an unknown command or option, a missing argument, an invalid flag or configuration value. Nothing was changed.'],
    ['3', 'Checked, not yet: a DNS check that got its answers and did not pass, svc doctor finding something to see to.'],
    ['130', 'Stopped by Ctrl-C (SIGINT); 143 by SIGTERM (live views and followers).'],
  ])
    out.push('.TP', `.B ${code}`, roff(text));
  out.push(
    '.SH ERRORS',
    'Every failure the service reports is one of these kinds, with its HTTP status, SMTP reply and exit code (src/errors.ts):',
  );
  for (const [name, k] of Object.entries(errorKinds) as Array<[string, ErrorKind]>)
    out.push(
      '.TP',
      `.B ${name}`,
      roff(
        `${k.message}: HTTP ${k.http}; ${k.smtp ? `SMTP ${k.smtp}${k.smtpWithMessage ? ' followed by the reason' : ''}` : 'no SMTP reply'}; exit ${k.exit}.`,
      ),
    );
  out.push('.SH FILES');
  for (const [f, text] of <Array<[string, string]>>[
    ['svc.toml', 'the config file in the working directory (else /etc/svc/svc.toml), written by svc init'],
    ['svc-data/', 'the embedded store (file:./svc-data by default): svc.json, the journals, svc.sock, svc.lock'],
  ])
    out.push('.TP', `.I ${roff(f)}`, roff(text));
  out.push('.SH SEE ALSO', "The project's docs/ folder, one page a topic:");
  for (const [f, text] of DOCS) out.push('.TP', `.I docs/${roff(f)}`, roff(text));
  out.push('.PP', 'spec.md and CONTRACT.md are the product contract and the command line the acceptance tests drive.');
  return `${out.join('\n')}\n`;
}

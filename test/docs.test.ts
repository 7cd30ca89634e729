// The documentation keeps up with the code: the man page is what scripts/man-page.ts makes from the
// commands, the settings and the error registry; docs/configuration.md's table is the settings
// table; the README stays a short front page whose links lead to docs/ pages that exist.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { loadCommands } from '../commands/registry.js';
import { buildProgram, nounOf } from '../commands/main.js';
import { makeManifest, manifest } from '../commands/manifest.js';
import { errorKinds } from '../src/errors.js';
import { defaultShown, flagName, manEnvironment, markdownTable, SETTINGS } from '../src/settings.js';
import { MAN_BLOCK, SETTINGS_BLOCK } from '../scripts/docs.js';
import { manPage } from '../scripts/man-page.js';
import { buildInfo } from '../src/build-info.js';
import { fromRoot } from './helpers/root.js';

const man = readFileSync(fromRoot('man/svc.1'), 'utf8');
const readme = readFileSync(fromRoot('README.md'), 'utf8');
const doc = (name: string) => readFileSync(fromRoot('docs', name), 'utf8');
const docs = readdirSync(fromRoot('docs'))
  .filter((f) => f.endsWith('.md'))
  .map(doc)
  .join('\n');
const commands = await loadCommands();

test('man/svc.1 is made from the commands, the settings and the error registry (npm run docs)', async () => {
  assert.equal(man, manPage(await makeManifest(), buildInfo().version), 'run npm run docs');
});

test('every command has its entry in man/svc.1', () => {
  for (const c of commands) {
    const name = ['svc', c.noun, c.verb].filter(Boolean).join(' ').replace(/-/g, '\\-');
    assert.ok(man.includes(`.B ${name}`), `man page lacks ${name}`);
  }
});

test('every option of every command is in the man page', () => {
  for (const c of commands) {
    for (const o of c.options ?? []) {
      const flag = /--[a-z-]+/.exec(o.flags)![0].replace(/-/g, '\\-');
      assert.ok(man.includes(flag), `man page lacks ${o.flags}`);
    }
  }
});

test('every global option is in the man page and the docs', async () => {
  const io = { stdout: { write() {} }, stderr: { write() {} }, env: {}, cwd: '/' };
  for (const o of buildProgram(io, await makeManifest(), async () => {}).options) {
    assert.ok(man.includes(o.long!.replace(/-/g, '\\-')), `man page lacks ${o.long}`);
    if (o.long !== '--help') assert.ok(docs.includes(o.long!), `docs/ lack ${o.long}`);
  }
});

test("every error kind of the registry is in the man page's ERRORS section, with its SMTP reply", () => {
  const section = man.slice(man.indexOf('.SH ERRORS'), man.indexOf('.SH', man.indexOf('.SH ERRORS') + 1));
  for (const [name, k] of Object.entries(errorKinds)) {
    assert.ok(section.includes(`.B ${name}\n`), `man page ERRORS lacks ${name}`);
    if (k.smtp) assert.ok(section.includes(k.smtp.replace(/-/g, '\\-')), `man page ERRORS lacks the reply of ${name}: ${k.smtp}`);
  }
});

test('the docs list the REST errors of the spec that exist so far', () => {
  for (const k of ['missing_bearer', 'invalid_key_format', 'invalid_key', 'body_too_large'] as const) {
    assert.ok(docs.includes(errorKinds[k].message), errorKinds[k].message);
  }
});

test('the README: the two commands first, at most 300 lines, every docs/ link to a page that exists, no issue numbers', () => {
  assert.match(readme, /^```sh\nnpm ci && npm start.*\nnpm ci && npm test/m);
  assert.ok(readme.split('\n').length <= 300, `README.md has ${readme.split('\n').length} lines`);
  const links = [...readme.matchAll(/\]\((docs\/[^)#]+)/g)].map((m) => m[1]!);
  assert.ok(links.length >= 10, 'the README links the docs');
  for (const l of links) assert.doesNotThrow(() => readFileSync(fromRoot(l)), l);
  for (const [name, text] of [
    ['README.md', readme],
    ['docs/', docs],
  ] as const)
    assert.doesNotMatch(text, /\bissue \d+/i, `${name} cites an issue number`);
});

test('docs/configuration.md holds the settings table and the man page the ENVIRONMENT list (npm run docs)', () => {
  const block = (text: string, [begin, end]: readonly [string, string]) =>
    text.slice(text.indexOf(begin) + begin.length + 1, text.indexOf(end) - 1);
  assert.equal(block(doc('configuration.md'), SETTINGS_BLOCK), markdownTable());
  assert.equal(block(man, MAN_BLOCK), manEnvironment());
});

test("every setting's flag has a man page entry that names its variable and its default", () => {
  const roff = (s: string) => s.replace(/-/g, '\\-');
  const missing: string[] = [];
  for (const s of SETTINGS) {
    if (!s.flag) continue;
    const at = man.search(new RegExp(`\\.TP\\n\\.BI? ${roff(flagName(s)!).replace(/\\/g, '\\\\')}[ \\n]`));
    if (at < 0) {
      missing.push(`no entry for ${s.flag}`);
      continue;
    }
    const entry = man.slice(at + 4, man.slice(at + 4).search(/\n\.(TP|SS|SH|PP)\b/) + at + 4);
    if (s.env && !entry.includes(s.env)) missing.push(`${s.flag}: ${s.env}`);
    const d = defaultShown(s);
    if (d !== 'none' && /^[\w.:/-]+$/.test(d) && !entry.includes(roff(d))) missing.push(`${s.flag}: default ${d}`);
  }
  assert.deepEqual(missing, []);
});

test('the built manifest (dist/commands/manifest.json) is every command’s usage, as the commands say it', async () => {
  const built = JSON.parse(readFileSync(fromRoot('dist/commands/manifest.json'), 'utf8'));
  assert.deepEqual(built, JSON.parse(JSON.stringify(await makeManifest())), 'run npm run build');
  assert.equal((await manifest()).commands.length, commands.length);
});

test('the noun of a command line: after global options and their values, by its name or its singular; none for top-level commands', async () => {
  const m = await makeManifest();
  assert.equal(nounOf(['--store', 'file:keys', '--json', 'keys', 'list'], m), 'keys', 'a value that looks like a noun is skipped');
  assert.equal(nounOf(['--workspace=acme', 'key', 'create'], m), 'keys');
  assert.equal(nounOf(['--config', 'svc.toml', 'serve'], m), null);
  assert.equal(nounOf(['kyes', 'list'], m), null, 'an unknown word: the whole tree, for its suggestion');
  assert.equal(nounOf(['--', 'keys'], m), null);
  assert.equal(nounOf([], m), null);
});

test('every command has an example in its help, and every example parses as that command with flags it has', async () => {
  const m = await makeManifest();
  const io = { stdout: { write() {} }, stderr: { write() {} }, env: {}, cwd: '/' };
  for (const c of m.commands) {
    const name = [c.noun, c.verb].filter(Boolean).join(' ');
    assert.ok(c.examples.length >= 1, `${name} has no example (commands/examples.ts)`);
    for (const example of c.examples) {
      // The svc part of a shell line: from "svc " to the first pipe, redirection or closing parenthesis.
      const line = example.slice(example.indexOf('svc ') + 4);
      const argv: string[] = [];
      for (const m of line.matchAll(/"([^"]*)"|'([^']*)'|([|><)])|(\S+)/g)) {
        if (m[3]) break;
        argv.push(m[1] ?? m[2] ?? m[4]!);
      }
      let ran: string | null = null;
      // Parsing only: the examples' short ids are not looked up (no store here).
      const parsing = { ...m, commands: m.commands.map(({ ids: _ids, ...rest }) => rest) };
      // As the binary builds it: only the named noun's verbs (nounOf), the other nouns bare.
      const noun = nounOf(argv, parsing);
      assert.equal(noun, c.noun || null, `the noun of ${example}`);
      const program = buildProgram(io, parsing, async (_ctx, spec) => void (ran = [spec.noun, spec.verb].filter(Boolean).join(' ')), noun);
      await program.parseAsync(argv, { from: 'user' });
      assert.equal(ran, name, `example of ${name}: ${example}`);
    }
  }
});

test('svc help NOUN VERB is that command’s help, with its example and the global options', async () => {
  const { main } = await import('../commands/main.js');
  let out = '';
  const io = { stdout: { write: (s: string) => void (out += s) }, stderr: { write() {} }, env: {}, cwd: '/' } as never;
  assert.equal(await main(['help', 'keys', 'create'], io), 0);
  assert.match(out, /^Usage: svc keys create \[options\]/);
  assert.match(out, /^Global Options:$/m);
  for (const flag of ['--store', '--workspace', '--json', '--config']) assert.match(out, new RegExp(`^  ${flag}\\b`, 'm'), flag);
  assert.match(out, /^Examples:\n {2}svc keys create /m);
});

// The documentation keeps up with the code: every command has its man page section, and every
// REST error text of the registry that a client can meet is in the README.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { commands } from '../commands/registry.js';
import { buildProgram } from '../commands/main.js';
import { errorKinds } from '../src/errors.js';
import { defaultShown, flagName, manEnvironment, markdownTable, SETTINGS } from '../src/settings.js';
import { MAN_BLOCK, README_BLOCK } from '../scripts/docs.js';

const man = readFileSync(new URL('../man/svc.1', import.meta.url), 'utf8');
const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');

test('every command has a section in man/svc.1', () => {
  for (const c of commands) {
    const name = ['svc', c.noun, c.verb].filter(Boolean).join(' ').replace(/-/g, '\\-');
    assert.ok(man.includes(`.SS "${name}`), `man page lacks ${name}`);
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

test('every global option is in the man page and the README', () => {
  const io = { stdout: { write() {} }, stderr: { write() {} }, env: {}, cwd: '/' };
  for (const o of buildProgram(io, async () => {}).options) {
    assert.ok(man.includes(o.long!.replace(/-/g, '\\-')), `man page lacks ${o.long}`);
    if (o.long !== '--help') assert.ok(readme.includes(o.long!), `README lacks ${o.long}`);
  }
});

test("every error kind of the registry is in the man page's ERRORS section, with its SMTP reply", () => {
  const section = man.slice(man.indexOf('.SH ERRORS'), man.indexOf('.SH', man.indexOf('.SH ERRORS') + 1));
  for (const [name, k] of Object.entries(errorKinds)) {
    assert.ok(section.includes(`.B ${name}\n`), `man page ERRORS lacks ${name}`);
    if (k.smtp) assert.ok(section.includes(k.smtp.replace(/-/g, '\\-')), `man page ERRORS lacks the reply of ${name}: ${k.smtp}`);
  }
});

test('the README lists the REST errors of the spec that exist so far', () => {
  for (const k of ['missing_bearer', 'invalid_key_format', 'invalid_key', 'body_too_large'] as const) {
    assert.ok(readme.includes(errorKinds[k].message), errorKinds[k].message);
  }
  assert.match(readme, /^```sh\nnpm ci && npm start.*\nnpm ci && npm test/m);
});

test('the README configuration table and the man page ENVIRONMENT list are the settings table (npm run docs)', () => {
  const block = (text: string, [begin, end]: readonly [string, string]) =>
    text.slice(text.indexOf(begin) + begin.length + 1, text.indexOf(end) - 1);
  assert.equal(block(readme, README_BLOCK), markdownTable());
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

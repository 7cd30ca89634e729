// The rules of what reaches a terminal (commands/terminal.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { inertJson, printable } from '../../commands/terminal.js';

test('printable: C0 in caret notation, DEL as ^?, C1 as \\x9b; line breaks and tabs kept, or shown in a cell', () => {
  assert.equal(printable('a\x1b]0;t\x07b'), 'a^[]0;t^Gb');
  assert.equal(printable('x\x7fy\u009bz\u0085'), 'x^?y\\x9bz\\x85');
  assert.equal(printable('one\n\ttwo\r'), 'one\n\ttwo^M');
  assert.equal(printable('one\n\ttwo', { inline: true }), 'one\\n\\ttwo');
  assert.equal(printable('plain ünïcode'), 'plain ünïcode');
});

test("printable: svc's own colour codes stay only when colour is on, and nothing else that starts with ESC", () => {
  assert.equal(printable('\x1b[32mok\x1b[39m', { keepColour: true }), '\x1b[32mok\x1b[39m');
  assert.equal(printable('\x1b[32mok\x1b[39m'), '^[[32mok^[[39m');
  assert.equal(printable('\x1b[2J\x1b]52;c;x\x07', { keepColour: true }), '^[[2J^[]52;c;x^G');
});

test('inertJson: DEL and C1 escaped, C0 as JSON.stringify has them; parses to the same value', () => {
  const doc = { s: 'a\x1b[2J\u009b\x7f\u0085b' };
  const text = inertJson(doc);
  assert.doesNotMatch(text, /[\x00-\x09\x0b-\x1f\x7f-\x9f]/);
  assert.deepEqual(JSON.parse(text), doc);
  assert.equal(inertJson(doc, 0).includes('\n'), false);
});

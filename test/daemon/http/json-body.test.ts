// The JSON depth guard (daemon/http/json-body.ts) against a plain reading of the same text, one
// character at a time (a backslash in a string skips the next character, a quote ends it), on
// random texts made of the characters that matter: brackets, quotes, backslashes and others.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { jsonDepth } from '../../../daemon/http/json-body.js';

function byCharacter(text: string, stopAt = Infinity): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{' || c === '[') {
      if (++depth > max) max = depth;
      if (max > stopAt) return max;
    } else if (c === '}' || c === ']') depth--;
  }
  return max;
}

test('jsonDepth agrees with a character-by-character reading on 20,000 random texts', () => {
  // A seeded generator, so that a failure can be replayed.
  let seed = 42;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const alphabet = ['{', '}', '[', ']', '"', '"', '\\', '\\', 'a', ':', ','];
  for (let n = 0; n < 20_000; n++) {
    const text = Array.from({ length: Math.floor(next() * 120) }, () => alphabet[Math.floor(next() * alphabet.length)]).join('');
    for (const stopAt of [Infinity, 2]) assert.equal(jsonDepth(text, stopAt), byCharacter(text, stopAt), JSON.stringify(text));
  }
});

test('jsonDepth: real bodies, long strings, runs of backslashes', () => {
  const html = '<p>{[x]}</p> \\ " \\\\'.repeat(2000);
  assert.equal(jsonDepth(JSON.stringify({ from: 'a@b.c', to: ['x@y.z'], body_html: html, tags: [{ name: 'n' }] })), 3);
  assert.equal(jsonDepth(`["${'\\\\'.repeat(5000)}", [[]]]`), 3);
  assert.equal(jsonDepth(`["${'\\"'.repeat(5000)}[[[["]`), 1);
  assert.equal(jsonDepth('['.repeat(40), 32), 33);
  assert.equal(jsonDepth('"unterminated [[[['), 0);
});

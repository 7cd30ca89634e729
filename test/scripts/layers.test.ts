import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pathToFileURL } from 'node:url';
import { fromRoot } from '../helpers/root.js';

// A plain script of the checkout, without types; from its place, as the test may run compiled.
type Import = { spec: string; typeOnly: boolean; line: number; dynamic?: true };
const { importsOf, layerProblems } = (await import(pathToFileURL(fromRoot('scripts/layers.mjs')).href)) as {
  importsOf(file: string, text: string): Import[];
  layerProblems(files?: string[], read?: (file: string) => string | undefined): string[];
};

const read = (text: string): Array<{ spec: string; typeOnly: boolean; line: number; dynamic?: true }> =>
  importsOf('src/model/planted.ts', text);

test('the layer lint reads every form of import: over several lines, import(), export from, type-only', () => {
  const found = read(
    [
      'import {',
      '  a,',
      '  b,',
      "} from '../send/pipeline.js';",
      "import type { C } from '../inbox/inbox.js';",
      "import { type D, type E } from '../lists/lists.js';",
      "export { f } from '../tracking/tracking.js';",
      "export type { G } from '../people/people.js';",
      "const h = await import('../daemon/serve.js');",
      "type I = import('../relay/relay.js').Relay;",
    ].join('\n'),
  );
  assert.deepEqual(
    found.map((i) => [i.spec, i.typeOnly, i.line, Boolean(i.dynamic)]),
    [
      ['../send/pipeline.js', false, 1, false],
      ['../inbox/inbox.js', true, 5, false],
      ['../lists/lists.js', true, 6, false],
      ['../tracking/tracking.js', false, 7, false],
      ['../people/people.js', true, 8, false],
      ['../daemon/serve.js', false, 9, true],
      ['../relay/relay.js', true, 10, false],
    ],
  );
});

test('the tree as it is breaks no layer and has no folder cycle', () => {
  assert.deepEqual(layerProblems(), []);
});

/** The problems of planted files alone. */
const planted = (files: Record<string, string>): string[] => layerProblems(Object.keys(files), (f: string) => files[f]);

test('an upward import fails the lint however it is written', () => {
  const multiLine = planted({ 'src/model/planted.ts': "import {\n  sendPipeline,\n  type SendOptions,\n} from '../send/pipeline.js';\n" });
  assert.deepEqual(multiLine, ['src/model/planted.ts:1: src/model/ imports src/send/pipeline.ts, above its layer']);
  const dynamic = planted({ 'src/store/planted.ts': "export const load = () =>\n  import(\n    '../inbox/inbox.js'\n  );\n" });
  assert.deepEqual(dynamic, ['src/store/planted.ts:2: src/store/ imports src/inbox/inbox.ts (import()), above its layer']);
  const typeOnly = planted({
    'src/send/planted.ts': "import type { Command } from 'commander';\nimport type { X } from '../../daemon/serve.js';\n",
  });
  assert.equal(typeOnly.length, 2);
  assert.match(typeOnly[1]!, /src\/send\/planted.ts:2: src\/ imports daemon\/serve.ts \(type only\), above its layer/);
});

test('a sideways reach and a folder cycle fail the lint', () => {
  assert.deepEqual(planted({ 'src/inbox/planted.ts': "import { x } from '../send/outcome.js';\n" }), [
    'src/inbox/planted.ts:1: imports src/send/outcome.ts sideways: what both directions need (bounce classes, event builders) lives below both, in src/model/ or src/mail/',
  ]);
  assert.deepEqual(
    planted({
      'src/lists/a.ts': "import { b } from '../broadcasts/b.js';\n",
      'src/broadcasts/b.ts': "export { c } from '../sequences/c.js';\n",
      'src/sequences/c.ts': "import type { A } from '../lists/a.js';\n",
    }),
    [
      'src/ folders form a cycle: broadcasts → sequences (src/broadcasts/b.ts:1), sequences → lists (src/sequences/c.ts:1), lists → broadcasts (src/lists/a.ts:1)',
    ],
  );
  // Below, beside and within are fine.
  assert.deepEqual(
    planted({
      'src/send/ok.ts':
        "import { a } from '../model/message.js';\nimport { b } from '../mail/names.js';\nimport { c } from './pipeline.js';\n",
    }),
    [],
  );
});

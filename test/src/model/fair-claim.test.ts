// The fair claim's order (model/fair-claim.ts), as every store uses it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fairPick } from '../../../src/model/fair-claim.js';

const job = (id: string, due: number) => ({ id, due });
const byDue = (a: { due: number }, b: { due: number }) => a.due - b.due;
const ids = (js: Array<{ id: string }>) => js.map((j) => j.id);

test('fair claim: transactional first, workspaces in turn by due time, bulk capped, no bulk slot reads no bulk', () => {
  const groups = [
    { priority: 1, jobs: [0, 1, 2, 3, 4].map((i) => job(`big${i}`, i)) },
    { priority: 1, jobs: [job('small0', 2)] },
    { priority: 0, jobs: [job('reset', 9)] },
    { priority: 0, jobs: [job('other', 1)] },
  ];
  assert.deepEqual(ids(fairPick(groups, 10, 10, byDue)), ['other', 'reset', 'big0', 'small0', 'big1', 'big2', 'big3', 'big4']);
  assert.deepEqual(ids(fairPick(groups, 10, 2, byDue)), ['other', 'reset', 'big0', 'small0'], 'bulk capped at 2 across its workspaces');
  assert.deepEqual(ids(fairPick(groups, 2, 10, byDue)), ['other', 'reset']);
  assert.deepEqual(ids(fairPick(groups, 10, 0, byDue)), ['other', 'reset'], 'no bulk slot: no bulk job');
  assert.deepEqual(ids(fairPick(groups, 3, 3, byDue)), ['other', 'reset', 'big0']);
  assert.deepEqual(fairPick([], 5, 5, byDue), []);
});

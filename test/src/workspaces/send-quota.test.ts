// The send quota's windows, remembered for the day (windowsOfToday): the same windows all day for a
// plan, new ones from midnight (UTC) and for another plan, and never changed by a caller.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { inboxWindows, sendWindows, windowsOfToday } from '../../../src/workspaces/send-quota.js';
import type { Workspace } from '../../../src/model/workspace.js';

const ws = (plan: Workspace['plan']) => ({ plan }) as Workspace;

test('windowsOfToday: what sendWindows and inboxWindows make, made once a day per plan', () => {
  for (const make of [sendWindows, inboxWindows]) {
    const of = windowsOfToday(make);
    const morning = new Date('2026-11-27T00:00:00.000Z');
    const night = new Date('2026-11-27T23:59:59.999Z');
    const first = of(ws('scale'), morning);
    assert.deepEqual(first, make(ws('scale'), morning));
    assert.equal(of(ws('scale'), night), first, 'the same all day');
    assert.deepEqual(of(ws('trial'), night), make(ws('trial'), night), 'another plan, its own');
    const next = of(ws('scale'), new Date('2026-11-28T00:00:00.000Z'));
    assert.notEqual(next, first);
    assert.deepEqual(next, make(ws('scale'), new Date('2026-11-28T00:00:00.000Z')), 'from midnight, the next day');
    // A clock set back (tests, or a corrected host) is a day again like any other.
    assert.deepEqual(of(ws('scale'), morning), first);
    assert.throws(() => ((of(ws('scale'), morning) as Array<{ limit: number | null }>)[0]!.limit = 1), TypeError);
    assert.throws(() => of(ws('scale'), morning).push(first[0]!), TypeError);
  }
});

// The live views' terminal: a width of 0 (`stty cols 0`) is drawn at 80 columns, never one
// character to a line; a view that sleeps between reads leaves no listener behind on its stop
// signal (broadcasts watch sleeps twice a second; past ten Node warned into the view).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { screenOf } from '../../commands/ink-screen.js';
import { onStop } from '../../commands/stop.js';

test('a terminal of 0 columns is drawn at 80; a real width is kept; the stream is still the stream', () => {
  const written: string[] = [];
  const fake = {
    columns: 0,
    rows: 24,
    isTTY: true,
    write(s: string) {
      written.push(s);
      return true;
    },
  } as unknown as NodeJS.WriteStream;
  const screen = screenOf(fake);
  assert.equal(screen.columns, 80);
  (fake as { columns: number }).columns = 132;
  assert.equal(screen.columns, 132, 'read afresh (a resize)');
  assert.equal(screen.rows, 24);
  screen.write('x');
  assert.deepEqual(written, ['x']);
});

test('sleeping many times leaves no listener on the stop signal', async () => {
  const stop = onStop();
  const warnings: Error[] = [];
  const onWarning = (w: Error) => warnings.push(w);
  process.on('warning', onWarning);
  try {
    for (let i = 0; i < 25; i++) await stop.sleep(1);
    // A warning is emitted on the next tick: give it one.
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(
      warnings.map((w) => w.name),
      [],
    );
  } finally {
    process.off('warning', onWarning);
    stop.dispose();
  }
});

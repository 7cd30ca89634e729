// The command context holds one store at a time: a data-file-only store (docService) and then the
// whole service in one command hand the file store's lock over (the second open would otherwise
// wait for this process's own lock); the other way round, docService shares the service's store.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Context } from '../../commands/context.js';
import { svc, json } from '../helpers/cli.js';
import { tmpDir } from '../helpers/tmp.js';

const quiet = { write: () => true };
/** A promise, or a failure after `ms` (a test never waits for ever). */
const within = async <T>(p: Promise<T>, what: string, ms = 20_000): Promise<T> => {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      p,
      new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what}: no answer in ${ms} ms`)), ms))),
    ]);
  } finally {
    clearTimeout(timer);
  }
};

test('docService then service hands the file store over; service then docService shares it; the lock is free after close', async (t) => {
  const dir = await tmpDir(t);
  json(await svc(['--store', `file:${dir}`, 'workspaces', 'create', 'acme', '--json']));
  const context = () => new Context({ stdout: quiet, stderr: quiet, env: {}, cwd: dir }, { store: `file:${dir}`, workspace: 'acme' });

  const first = context();
  const doc = await first.docService('keys');
  await doc.keys.create(await first.workspace(), { name: 'from-the-data-file' });
  const service = await within(first.service(), 'the whole service after docService');
  assert.deepEqual(
    (await service.keys.list(await first.workspace())).map((k) => k.name),
    ['from-the-data-file'],
  );
  assert.equal((await first.docService('keys')).store, service.store, 'the service’s store serves');
  await first.close();

  const second = context();
  const again = await within(second.docService('keys'), 'the data file after the first closed');
  assert.equal((await again.keys.list(await second.workspace())).length, 1);
  await second.close();
});

test('parts() builds the parts asked for on one store and one set of deps; service() and docService() afterwards share them; parts() after service() are the service’s', async (t) => {
  const dir = await tmpDir(t);
  json(await svc(['--store', `file:${dir}`, 'workspaces', 'create', 'acme', '--json']));
  const context = () => new Context({ stdout: quiet, stderr: quiet, env: {}, cwd: dir }, { store: `file:${dir}`, workspace: 'acme' });

  const first = context();
  const some = await within(first.parts('suppressions'), 'the suppressions part');
  const ws = await first.workspace();
  await some.suppressions.add(ws, 'a@x.test');
  assert.equal('messages' in some, false, 'only the parts asked for');
  const more = await within(first.parts('messages', 'suppressions'), 'two parts on the same store');
  assert.equal(more.suppressions, some.suppressions, 'a part is built once');
  assert.equal(more.store, some.store);
  assert.equal(more.bus, some.bus, 'one bus (one connection to the store’s events)');
  const doc = await within(first.docService('keys'), 'docService after parts');
  assert.equal(doc.store, some.store, 'docService shares the whole store');
  const service = await within(first.service(), 'the whole service after parts');
  assert.equal(service.store, some.store);
  assert.equal(service.bus, some.bus);
  assert.deepEqual(
    (await service.suppressions.list(ws)).map((s) => s.address),
    ['a@x.test'],
  );
  const after = await first.parts('suppressions');
  assert.equal(after.suppressions, service.suppressions, 'after service(), its own parts');
  await first.close();

  // The lock is free: another context opens the store at once, and release() lets go of it too.
  const second = context();
  assert.equal((await within(second.parts('suppressions'), 'the store after close')).store.describe, `file:${dir}`);
  assert.equal(await second.holdsStore(), true);
  await second.release();
  assert.equal(await second.holdsStore(), false);
  const third = context();
  await within(third.parts('keys'), 'the store after release');
  await third.close();
  await second.close();
});

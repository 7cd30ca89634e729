// `svc workspaces usage` and `show` take the workspace named, else --workspace, else the only one
// there is (as every workspace-scoped command does); with several and none named, wrong usage.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { run } from '../helpers/run.js';
import { json } from '../helpers/cli.js';
import { tmpDir } from '../helpers/tmp.js';

test('workspaces usage and show: the named one, else --workspace, else the only one', async (t) => {
  const store = `file:${await tmpDir(t)}`;
  const svc = (...args: string[]) => run(['--store', store, ...args]);
  assert.equal((await svc('workspaces', 'create', 'acme', '--plan', 'pro')).code, 0);
  for (const verb of ['usage', 'show']) {
    const only = json(await svc('workspaces', verb, '--json'));
    assert.equal(only.plan, 'pro', verb);
  }
  assert.equal((await svc('workspaces', 'create', 'beta')).code, 0);
  const several = await svc('workspaces', 'usage');
  assert.equal(several.code, 2);
  assert.match(several.stderr, /--workspace is required: the workspaces are: acme, beta/);
  assert.equal(json(await svc('--workspace', 'beta', 'workspaces', 'show', '--json')).name, 'beta');
  assert.equal(json(await svc('workspaces', 'show', 'acme', '--json')).name, 'acme');
  assert.equal((await svc('workspaces', 'show', 'nope')).code, 1);
});

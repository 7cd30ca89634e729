// `svc config show`: every setting's effective value and its source (flag, env, default), secrets
// masked, values checked as the daemon checks them, nothing opened.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { svc, json } from '../helpers/cli.js';
import { tmpDir } from '../helpers/tmp.js';
import { SETTINGS } from '../../src/settings.js';

test('config show: flag, env and default sources; serve flags too; secrets masked; nothing opened', async (t) => {
  const dir = await tmpDir(t);
  const store = join(dir, 'never-made');
  const r = await svc(['--store', `file:${store}`, 'config', 'show', '--api-port', '9000', '--json'], {
    env: { SVC_OUTBOUND: 'smtp://mailer:s3cret@relay.example:587', SVC_ENCRYPTION_KEY: 'a'.repeat(64), SVC_RELAY_PORT: '2600' },
  });
  assert.equal(r.code, 0, r.stderr);
  type Row = { setting: string; flag: string | null; env: string | null; value: string | null; source: string | null };
  const rows = json(r).settings as Row[];
  assert.deepEqual(
    rows.map((x) => x.setting),
    SETTINGS.map((s) => s.name),
    'every setting, in the table order',
  );
  const by = (name: string) => rows.find((x) => x.setting === name)!;
  assert.deepEqual([by('apiPort').value, by('apiPort').source], ['9000', 'flag']);
  assert.deepEqual([by('relayPort').value, by('relayPort').source], ['2600', 'env']);
  assert.deepEqual([by('mxPort').value, by('mxPort').source], ['2526', 'default']);
  // A default made of other settings follows them.
  assert.equal(by('baseUrl').value, 'http://127.0.0.1:9000');
  assert.deepEqual([by('outbound').value, by('outbound').source], ['smtp://mailer:***@relay.example:587', 'env']);
  assert.deepEqual([by('encryptionKey').value, by('encryptionKey').source], ['***', 'env']);
  assert.deepEqual([by('workspace').value, by('workspace').source], [null, null]);
  assert.ok(!r.stdout.includes('s3cret') && !r.stdout.includes('a'.repeat(64)));
  assert.equal(existsSync(store), false, 'the store was not opened or made');

  // For people: a table with the same facts.
  const human = await svc(['config', 'show', '--retention-days', '7'], { env: { SVC_STORE: 'postgres://u:pw@db.example/svc' } });
  assert.equal(human.code, 0, human.stderr);
  assert.match(human.stdout, /--retention-days\s+SVC_RETENTION_DAYS\s+7\s+flag/);
  assert.match(human.stdout, /--store\s+SVC_STORE\s+postgres:\/\/u:\*\*\*@db\.example\/svc\s+env/);
  assert.ok(!human.stdout.includes(':pw@'));
});

test('config show: a bad value is exit 2 with one line, as the daemon would refuse it', async () => {
  for (const [args, env] of [
    [['config', 'show', '--api-port', '70000'], {}],
    [['config', 'show'], { SVC_RELAY_DATA_MEMORY: 'lots' }],
    [['config', 'show', '--tls-cert', 'only.pem'], {}],
  ] as Array<[string[], Record<string, string>]>) {
    const r = await svc(args, { env });
    assert.equal(r.code, 2, `${args.join(' ')} ${JSON.stringify(env)}: ${r.stderr}`);
    assert.equal(r.stderr.trim().split('\n').length, 1);
    assert.equal(r.stdout, '');
  }
});

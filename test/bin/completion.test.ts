// svc completion (CONTRACT.md): the bash script completes nouns, verbs and options of this build
// in a real bash; zsh and fish scripts parse in their shells where installed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SVC, svc } from '../helpers/cli.js';
import { tmpDir } from '../helpers/tmp.js';

const has = (shell: string) => spawnSync(shell, ['-c', 'exit 0']).status === 0;

test('bash completion: nouns, verbs, command and global options', { skip: has('bash') ? false : 'bash is not installed' }, async (t) => {
  const r = await svc(['completion', 'bash']);
  assert.equal(r.code, 0, r.stderr);
  const file = join(await tmpDir(t), 'svc.bash');
  writeFileSync(file, r.stdout);
  const complete = (...words: string[]) => {
    const out = spawnSync(
      'bash',
      [
        '-c',
        `source ${JSON.stringify(file)}; COMP_WORDS=(${words.map((w) => JSON.stringify(w)).join(' ')}); COMP_CWORD=${words.length - 1}; _svc; printf '%s\\n' "\${COMPREPLY[@]}"`,
      ],
      { encoding: 'utf8' },
    );
    assert.equal(out.status, 0, out.stderr);
    return out.stdout.trim().split('\n').filter(Boolean);
  };
  assert.deepEqual(complete('svc', 'que'), ['queue', 'queues']);
  assert.ok(complete('svc', '').includes('doctor'));
  assert.deepEqual(complete('svc', 'domains', 're'), ['records', 'remove']);
  assert.ok(complete('svc', 'queue', 'retry', '--').includes('--older-than'));
  assert.ok(complete('svc', 'queue', 'retry', '--').includes('--store'), 'global options too');
  assert.deepEqual(complete('svc', 'init', '--ye'), ['--yes']);
  assert.ok(complete('svc', 'serve', '--metrics-').includes('--metrics-port'));
  // Domain names, from the store named on the line (svc itself on PATH as the first word).
  const dir = await tmpDir(t);
  await svc(['--store', `file:${dir}`, 'workspaces', 'create', 'acme', '--plan', 'scale']);
  await svc(['--store', `file:${dir}`, 'domains', 'add', 'example.test']);
  await svc(['--store', `file:${dir}`, 'domains', 'add', 'example2.test']);
  const bin = join(dir, 'bin');
  mkdirSync(bin);
  writeFileSync(join(bin, 'svc'), `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(SVC)} "$@"\n`, { mode: 0o755 });
  const names = spawnSync(
    'bash',
    [
      '-c',
      `PATH=${JSON.stringify(bin)}:$PATH; source ${JSON.stringify(file)}; COMP_WORDS=(svc domains verify ex --store file:${dir}); COMP_CWORD=3; _svc; printf '%s\\n' "\${COMPREPLY[@]}"`,
    ],
    { encoding: 'utf8' },
  );
  assert.deepEqual(names.stdout.trim().split('\n').sort(), ['example.test', 'example2.test'], names.stderr);
});

test('zsh and fish completion scripts parse in their shells; an unknown shell is exit 2', async () => {
  for (const shell of ['zsh', 'fish']) {
    const r = await svc(['completion', shell]);
    assert.equal(r.code, 0);
    if (!has(shell)) {
      assert.match(r.stdout, shell === 'zsh' ? /bashcompinit/ : /^complete -c svc/m);
      continue;
    }
    const parsed = spawnSync(shell, ['-n'], { input: r.stdout, encoding: 'utf8' });
    assert.equal(parsed.status, 0, parsed.stderr);
  }
  const bad = await svc(['completion', 'tcsh']);
  assert.deepEqual([bad.code, bad.stderr.trim()], [2, "svc: invalid shell 'tcsh': use bash, zsh, fish"]);
});

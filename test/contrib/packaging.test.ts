// The packaging: the systemd unit passes systemd-analyze verify; the container file
// builds where a container engine answers; `man svc` after `npm install -g` (package.json's man).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpDir } from '../helpers/tmp.js';
import { ROOT } from '../helpers/root.js';

const root = ROOT + '/';
const has = (cmd: string, args: string[]) => spawnSync(cmd, args, { stdio: 'ignore', timeout: 10_000 }).status === 0;

test(
  'contrib/svc.service: systemd-analyze verify passes; a dedicated user, StateDirectory, hardening, Restart=on-failure, ExecReload sends HUP',
  { skip: has('systemd-analyze', ['--version']) ? false : 'systemd-analyze is not installed' },
  async (t) => {
    const unit = join(root, 'contrib', 'svc.service');
    const text = readFileSync(unit, 'utf8');
    for (const line of [
      'User=svc',
      'StateDirectory=svc',
      'Restart=on-failure',
      'ExecReload=/bin/kill -HUP $MAINPID',
      'NoNewPrivileges=yes',
      'ProtectSystem=strict',
      'PrivateTmp=yes',
    ]) {
      assert.ok(text.split('\n').includes(line), line);
    }
    // Its Documentation= names man:svc(1): the page is put where man finds it, as an install would.
    const manpath = await tmpDir(t);
    mkdirSync(join(manpath, 'man1'));
    cpSync(join(root, 'man', 'svc.1'), join(manpath, 'man1', 'svc.1'));
    const r = spawnSync('systemd-analyze', ['verify', unit], {
      env: { ...process.env, MANPATH: manpath },
      encoding: 'utf8',
      timeout: 60_000,
    });
    assert.equal(r.status, 0, `${r.stdout}${r.stderr}`);
    assert.equal(r.stderr.trim(), '', r.stderr);
  },
);

test('package.json names the man page, so `npm install -g` installs `man svc`', () => {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { man?: string; bin?: Record<string, string> };
  assert.equal(pkg.man, './man/svc.1');
  assert.ok(existsSync(join(root, pkg.man)));
  assert.equal(pkg.bin?.svc, 'bin/svc');
});

const engine = ['docker', 'podman'].find((c) => has(c, ['info']));
test(
  'the Dockerfile builds and the image answers svc version',
  { skip: engine ? false : 'no container engine answers here (docker info / podman info)' },
  () => {
    const tag = `svc-test:${process.pid}`;
    const build = spawnSync(engine!, ['build', '-t', tag, root], { encoding: 'utf8', timeout: 900_000 });
    assert.equal(build.status, 0, build.stderr.slice(-4000));
    try {
      const run = spawnSync(engine!, ['run', '--rm', tag, 'version', '--json'], { encoding: 'utf8', timeout: 60_000 });
      assert.equal(run.status, 0, run.stderr);
      const version = JSON.parse(run.stdout);
      assert.match(version.version, /^\d+\.\d+\.\d+/);
      // The build stage built better-sqlite3 with the image's own Node.
      assert.match(version.sqlite, /^3\./);
      assert.deepEqual(version.start, { entry: 'bundle', code_cache: 'accepted' });
    } finally {
      spawnSync(engine!, ['rmi', tag], { stdio: 'ignore', timeout: 60_000 });
    }
  },
);

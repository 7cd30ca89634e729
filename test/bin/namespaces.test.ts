// Two containers on one volume, as PID namespaces: a daemon that is PID 1 of its own namespace owns
// the file store against another container's PID 1 and against the host (it once took their
// PID 1 locks for its own stale one, and a host command deleted its lock); a host admin command
// talks to it through its socket.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { SVC, serve, svc, json } from '../helpers/cli.js';
import { tmpDir } from '../helpers/tmp.js';

const CONTAINER = ['unshare', '--pid', '--fork', '--kill-child', '--mount-proc'];

test(
  'a PID 1 daemon holds its store against another PID 1 daemon and a host daemon; host admin commands go through its socket',
  { timeout: 120_000 },
  async (t) => {
    const probe = spawnSync('unshare', ['--pid', '--fork', '--mount-proc', 'true']);
    if (probe.error || probe.status !== 0)
      return t.skip(`unshare --pid is not available here (${probe.error?.message ?? probe.stderr.toString().trim()})`);
    const dir = await tmpDir(t);
    const store = ['--store', `file:${dir}`];
    json(await svc([...store, 'workspaces', 'create', 'acme', '--json']));
    const d1 = await serve(store, { prefix: CONTAINER });
    t.after(() => d1.stop('SIGKILL'));

    // Another container's daemon on the same volume: refused, naming the holder.
    const second = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
      const c = spawn(
        CONTAINER[0]!,
        [...CONTAINER.slice(1), process.execPath, SVC, 'serve', ...store, '--api-port', '0', '--relay-port', '0', '--mx-port', '0'],
        { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, NO_COLOR: '1' } },
      );
      let stderr = '';
      c.stderr!.on('data', (d) => (stderr += d));
      c.on('exit', (code) => resolve({ code, stderr }));
    });
    assert.equal(second.code, 1, second.stderr);
    assert.match(second.stderr, /in use by svc serve \(pid 1, in a container/);
    // A daemon on the host: refused too.
    await assert.rejects(serve(store), /in use by svc serve \(pid 1/);

    // A host admin command: through the daemon's socket, at once in the daemon.
    const key = json(await svc([...store, 'keys', 'create', '--scopes', 'read', '--json'])).key as string;
    const me = await fetch(`${d1.urls.api}/api/v2/me`, { headers: { authorization: `Bearer ${key}` } });
    assert.equal(me.status, 200);
    assert.equal(await d1.stop('SIGKILL'), null);
    // Once it is gone, the store is free at once (the kernel dropped its lock with it).
    const d2 = await serve(store);
    t.after(() => d2.stop('SIGKILL'));
    assert.equal(await d2.stop(), 0);
  },
);

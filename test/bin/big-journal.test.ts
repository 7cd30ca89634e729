// A day's journal past 2 GiB (Node cannot read such a file into one buffer): the store opens, the
// daemon and admin commands run, `svc store check` passes, and a message accepted then is there
// after a restart. The file is sparse: one attachment line of 2.2 GB of holes, as a day of 76
// large MX messages makes it, at no cost in disk.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, open, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { svc, json, serve, cliSender, postEmail } from '../helpers/cli.js';
import { tmpDir } from '../helpers/tmp.js';
import { fixtureDns } from '../helpers/dns-server.js';
import { sink } from '../helpers/sink.js';

test(
  'a store whose day journal is 2.2 GB opens; a 202 then survives a restart; store check passes; the next write begins a new segment',
  { timeout: 180_000 },
  async (t) => {
    const dns = await fixtureDns(t);
    const s = await sink(t);
    const dir = await tmpDir(t);
    const base = ['--store', `file:${dir}`, '--dns-server', dns.server];
    const key = await cliSender(base, dns);
    const day = new Date().toISOString().slice(0, 10);
    const big = join(dir, 'mail', `${day}.jsonl`);
    await mkdir(join(dir, 'mail'), { recursive: true });
    // Not 'a': a write at a position must land there, past a hole.
    const fh = await open(big, 'r+').catch(() => open(big, 'w+'));
    const { size: before } = await fh.stat();
    const length = 2_200_000_000;
    await fh.write(Buffer.from('~'), 0, 1, before);
    await fh.write(Buffer.from('\n'), 0, 1, before + length);
    await fh.close();
    assert.ok((await stat(big)).size > 2 ** 31, 'past 2 GiB');

    const check = await svc([...base, 'store', 'check', '--json']);
    assert.equal(check.code, 0, check.stderr);
    assert.equal(json(check).ok, true);
    assert.equal((await svc([...base, 'keys', 'list'])).code, 0);

    const flags = [...base, '--direct-port', String(s.port)];
    const d1 = await serve(flags);
    t.after(() => d1.stop('SIGKILL'));
    const r = await postEmail(d1, key, 'big@rcpt.test', 'past 2 GiB');
    assert.equal(r.status, 202);
    const { id } = r.body;
    await d1.stop('SIGKILL');
    assert.ok((await readdir(join(dir, 'mail'))).includes(`${day}.1.jsonl`), 'the write went to a new segment');

    const d2 = await serve(flags);
    t.after(() => d2.stop('SIGKILL'));
    const got = await fetch(`${d2.urls.api}/api/v2/messages/${id}`, { headers: { authorization: `Bearer ${key}` } });
    assert.equal(got.status, 200);
    assert.equal(await d2.stop(), 0);
  },
);

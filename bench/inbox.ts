// Benchmarks: what the team inbox costs the file store as it fills, and how fast the MX
// takes tiny messages.
// - Memory per stored inbox item and the time to open (restart) a store holding N of them (default
//   1,000,000; SVC_BENCH_INBOX_ITEMS to change), each measured in a fresh process (heap used plus
//   typed arrays' buffers after a full collection, minus an empty store's): from the index's
//   snapshot, as a restart does, and without it. Targets: under 100 bytes per item, under 10 s.
// - The MX taking 31-byte messages (20 connections, its per-sender and per-workspace rates off), next
//   to a bare smtp-server that accepts and discards them, driven by the same raw client in the same
//   run, in turns.
// - Compaction: a full 256 MB segment of 100 KB messages with two of every three deleted, rewritten
//   without them (inbox reads and the MX wait while it runs): its time and the bytes freed.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteStore } from '../src/store/sqlite/sqlite-store.js';
import type { InboxItem } from '../src/model/inbox.js';
import { FixtureDns } from '../test/helpers/dns-server.js';
import { benchChild, median, report } from './lib.js';
import { LOAD, drive, inTurns } from './smtp-harness.js';
import { mxDaemon } from './mx.js';

const ITEMS = Number(process.env.SVC_BENCH_INBOX_ITEMS ?? 1_000_000);
const RAW = Buffer.from('From: a@elsewhere.test\r\nTo: hello@acme.test\r\nSubject: Hi\r\n\r\nHello.\r\n');

function opened(dir: string): Promise<{ openMs: number; heap: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['--expose-gc', '--max-old-space-size=8192', '--import', 'tsx', new URL('./inbox-open-process.ts', import.meta.url).pathname, dir],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.on('error', reject);
    child.on('close', (code) => {
      const m = /open_ms (\d+) heap_bytes (-?\d+)/.exec(out);
      if (code !== 0 || !m) return reject(new Error(`open process exited ${code}: ${out}`));
      resolve({ openMs: Number(m[1]), heap: Number(m[2]) });
    });
  });
}

async function fill(dir: string, n: number): Promise<string> {
  const store = await SqliteStore.open(dir, 'admin');
  try {
    const ws = await store.workspaces.create({ id: randomUUID(), name: 'bench', plan: 'scale', created_at: new Date().toISOString() });
    const day = Date.now() - 86_400_000;
    let next = 0;
    await Promise.all(
      Array.from({ length: 256 }, async () => {
        while (next < n) {
          const i = next++;
          const item: InboxItem = {
            id: randomUUID(),
            workspace_id: ws.id,
            folder: 'inbox',
            kind: 'mail',
            thread_id: randomUUID(),
            from: 'a@elsewhere.test',
            to: ['hello@acme.test'],
            cc: [],
            subject: `Hi ${i}`,
            message_id: `${i}@elsewhere.test`,
            size: RAW.length,
            message_ref: null,
            note: null,
            created_at: new Date(day + i).toISOString(),
            in_reply_to: null,
            references: [],
            headers: '',
            text: null,
            html: null,
            envelope: { mail_from: 'a@elsewhere.test', rcpt_to: ['hello@acme.test'], remote_ip: '127.0.0.1' },
            raw: null,
          };
          await store.inbox.receive({ raw: RAW, items: [item], updates: [], outbox: [], events: [], suppressions: [] });
        }
      }),
    );
    return ws.id;
  } finally {
    await store.close();
  }
}

export async function inbox(): Promise<void> {
  const empty = mkdtempSync(join(tmpdir(), 'svc-bench-inbox-'));
  const full = mkdtempSync(join(tmpdir(), 'svc-bench-inbox-'));
  try {
    await (await SqliteStore.open(empty, 'admin')).close();
    const t0 = performance.now();
    await fill(full, ITEMS);
    const fillS = (performance.now() - t0) / 1000;
    const base = await opened(empty);
    // The close after the fill wrote the index's snapshot: a restart reads it.
    const big = await opened(full);
    // Without it (the first start after an upgrade, or a journal file rewritten since) the journal is read whole.
    rmSync(join(full, 'inbox', 'index.snapshot'));
    const whole = await opened(full);
    report(`file store with ${ITEMS.toLocaleString('en')} inbox items`, {
      bytes_per_item: Math.round((big.heap - base.heap) / ITEMS),
      open_s: big.openMs / 1000,
      open_without_snapshot_s: whole.openMs / 1000,
      filled_per_s: Math.round(ITEMS / fillS),
      targets: '< 100 bytes, < 10 s',
    });
  } finally {
    rmSync(empty, { recursive: true, force: true });
    rmSync(full, { recursive: true, force: true });
  }
  await compaction();
  await tinyMessages();
}

/** One segment of 100 KB messages, two of every three deleted, compacted: how long the inbox waits. */
async function compaction(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-inbox-'));
  try {
    const store = await SqliteStore.open(dir, 'admin');
    const ws = await store.workspaces.create({ id: randomUUID(), name: 'bench', plan: 'scale', created_at: new Date().toISOString() });
    const raw = Buffer.from(`Subject: big\r\n\r\n${'y'.repeat(100 * 1024)}\r\n`);
    const ids: string[] = [];
    // About 240 KB of lines each (the message in base64, then its text): 1,080 fill one segment.
    for (let i = 0; i < 1080; i++) {
      const item: InboxItem = {
        id: randomUUID(),
        workspace_id: ws.id,
        folder: 'inbox',
        kind: 'mail',
        thread_id: randomUUID(),
        from: 'a@elsewhere.test',
        to: ['hello@acme.test'],
        cc: [],
        subject: `Big ${i}`,
        message_id: null,
        size: raw.length,
        message_ref: null,
        note: null,
        created_at: new Date().toISOString(),
        in_reply_to: null,
        references: [],
        headers: 'Subject: big',
        text: 'y'.repeat(100 * 1024),
        html: null,
        envelope: { mail_from: 'a@elsewhere.test', rcpt_to: ['hello@acme.test'], remote_ip: '127.0.0.1' },
        raw: null,
      };
      ids.push(item.id);
      await store.inbox.receive({ raw, items: [item], updates: [], outbox: [], events: [], suppressions: [] });
    }
    for (const [i, id] of ids.entries()) if (i % 3 !== 0) await store.inbox.remove(ws.id, id);
    const t0 = performance.now();
    const freed = await store.inbox.compact();
    report('compacting a 256 MB inbox segment, two thirds of it deleted', {
      ms: Math.round(performance.now() - t0),
      freed_mb: Math.round(freed / 1048576),
    });
    await store.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The MX against a bare smtp-server, 31-byte messages, same client, in turns. */
async function tinyMessages(): Promise<void> {
  if (!existsSync(LOAD)) {
    process.stdout.write(`inbox: tiny messages skipped, the load client ${LOAD} is not there\n`);
    return;
  }
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-'));
  const sink = await benchChild('./sink-process.ts');
  const dns = await new FixtureDns().load(['sending.zone']).start();
  const args = ['--from', 'someone@elsewhere.test', '--to', 'hello@acme.test', '--size', '31'];
  try {
    const { daemon, port: mxPort } = await mxDaemon(dir, dns);
    try {
      const servers = [
        { name: 'bare', port: sink.port, auth: null },
        { name: 'mx', port: mxPort, auth: null },
      ];
      for (const s of servers) await drive(s, 3000, args);
      const ratios: number[] = [];
      for (const [i, rate] of (await inTurns(servers, 3, 10_000, args)).entries()) {
        ratios.push(rate.mx! / rate.bare!);
        report(`  round ${i + 1}`, {
          bare_per_s: Math.round(rate.bare!),
          svc_mx_per_s: Math.round(rate.mx!),
          ratio: rate.mx! / rate.bare!,
        });
      }
      report('svc MX, 31-byte messages stored, vs a bare smtp-server', { of_bare: median(ratios), connections: 20 });
    } finally {
      await daemon.stop();
    }
  } finally {
    sink.child.kill();
    await dns.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

// `svc webhooks tail` on a terminal: the latest attempts as they happen, with counts. Loaded only
// there, so other commands never pay for ink and react.
import React, { useEffect, useState } from 'react';
import { Box, Text, render, useApp } from 'ink';
import type { AttemptView } from '../../src/webhooks/webhooks.js';

const SHOWN = 20;

function Tail({ poll, wait, signal }: { poll: () => Promise<AttemptView[]>; wait: () => Promise<void>; signal: AbortSignal }) {
  const { exit } = useApp();
  const [rows, setRows] = useState<AttemptView[]>([]);
  const [counts, setCounts] = useState({ ok: 0, failed: 0 });
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    const tick = () => {
      poll().then(
        (fresh) => {
          setError(null);
          if (fresh.length) {
            setRows((old) => [...old, ...fresh].slice(-SHOWN));
            setCounts((c) => ({ ok: c.ok + fresh.filter((r) => r.ok).length, failed: c.failed + fresh.filter((r) => !r.ok).length }));
          }
          if (!signal.aborted) void wait().then(() => !signal.aborted && tick());
        },
        (e: Error) => {
          setError(e.message);
          if (!signal.aborted) void wait().then(() => !signal.aborted && tick());
        },
      );
    };
    tick();
    const onAbort = () => exit();
    signal.addEventListener('abort', onAbort);
    return () => {
      signal.removeEventListener('abort', onAbort);
    };
  }, []);
  return (
    <Box flexDirection="column">
      <Text bold>
        webhook deliveries <Text color="green">{counts.ok} delivered</Text> · <Text color={counts.failed ? 'red' : 'gray'}>{counts.failed} failed</Text>
        <Text dimColor> · Ctrl-C to stop</Text>
      </Text>
      {rows.length === 0 ? <Text dimColor>waiting for attempts…</Text> : null}
      {rows.map((r) => (
        <Text key={r.id}>
          <Text dimColor>{r.attempted_at.slice(11, 23)} </Text>
          <Text color={r.ok ? 'green' : 'red'}>{String(r.status_code ?? '---').padEnd(4)}</Text>
          {r.event.padEnd(16)} {r.kind.padEnd(6)} <Text dimColor>{r.endpoint_id.slice(0, 8)}</Text> {String(r.duration_ms).padStart(5)} ms
          {r.error ? <Text color="red"> {r.error}</Text> : null}
        </Text>
      ))}
      {error ? <Text color="red">{error}</Text> : null}
    </Box>
  );
}

export async function tailView(poll: () => Promise<AttemptView[]>, wait: () => Promise<void>, signal: AbortSignal): Promise<void> {
  const app = render(<Tail poll={poll} wait={wait} signal={signal} />, { exitOnCtrlC: true });
  await app.waitUntilExit();
}

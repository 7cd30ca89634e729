// `svc status` on a terminal: the status lines redrawn as the daemon works; q or Ctrl-C leaves.
import React, { useEffect, useState } from 'react';
import { Box, Text, useApp, useInput } from 'ink';
import { renderLive } from '../ink-screen.js';
import { printable } from '../terminal.js';
import type { StatusView } from '../../src/status/status.js';
import { statusLines } from './lines.js';

function Status({ read, wait, signal }: { read: () => Promise<StatusView>; wait: () => Promise<void>; signal: AbortSignal }) {
  const { exit } = useApp();
  const [view, setView] = useState<StatusView | null>(null);
  const [error, setError] = useState<string | null>(null);
  useInput((input) => {
    if (input === 'q') exit();
  });
  useEffect(() => {
    let live = true;
    const tick = () => {
      if (!live || signal.aborted) return;
      read()
        .then(
          (v) => {
            setView(v);
            setError(null);
          },
          (e: Error) => setError(e.message),
        )
        .finally(() => void wait().then(tick, tick));
    };
    tick();
    const onAbort = () => exit();
    signal.addEventListener('abort', onAbort);
    return () => {
      live = false;
      signal.removeEventListener('abort', onAbort);
    };
  }, []);
  if (!view) return <Text dimColor>reading the daemon's report…</Text>;
  const lines = statusLines(view);
  return (
    <Box flexDirection="column">
      {lines.map((l, i) => (
        <Text key={i} bold={i === 0} color={l.startsWith('FAULT') ? 'red' : undefined}>
          {printable(l, { inline: true })}
        </Text>
      ))}
      {error ? <Text color="red">{printable(error, { inline: true })}</Text> : <Text dimColor>q or Ctrl-C to leave</Text>}
    </Box>
  );
}

export async function statusView(read: () => Promise<StatusView>, wait: () => Promise<void>, signal: AbortSignal): Promise<void> {
  const app = renderLive(<Status read={read} wait={wait} signal={signal} />);
  await app.waitUntilExit();
}

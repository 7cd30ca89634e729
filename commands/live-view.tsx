// A live list on a terminal (`svc webhooks tail`, `svc inbox watch`): new rows as they arrive, the
// newest SHOWN kept, a heading that may count them. Loaded only there, so other commands never pay
// for ink and react. Leaves cleanly on Ctrl-C or when the signal is aborted.
import React, { useEffect, useState, type ReactNode } from 'react';
import { Box, Text, useApp } from 'ink';
import { renderLive } from './ink-screen.js';
import { printable } from './terminal.js';
import type { Notes } from './follow.js';

const SHOWN = 20;

interface Props<T> {
  poll: () => Promise<T[]>;
  wait: () => Promise<void>;
  signal: AbortSignal;
  rowKey: (row: T) => string;
  heading: (seen: T[]) => ReactNode;
  row: (row: T) => ReactNode;
  empty: string;
  /** What the follower says about its connection (a lost daemon, found again), shown under the heading. */
  notes: Notes;
}

function Live<T>({ poll, wait, signal, rowKey, heading, row, empty, notes }: Props<T>) {
  const { exit } = useApp();
  const [rows, setRows] = useState<T[]>([]);
  const [seen, setSeen] = useState<T[]>([]);
  const [error, setError] = useState<string | null>(null);
  const [note, setNote] = useState<string | null>(null);
  useEffect(() => {
    notes(setNote);
    const next = () => {
      if (!signal.aborted) void wait().then(() => !signal.aborted && tick());
    };
    const tick = () => {
      poll().then(
        (fresh) => {
          setError(null);
          if (fresh.length) {
            setRows((old) => [...old, ...fresh].slice(-SHOWN));
            setSeen((old) => [...old, ...fresh]);
          }
          next();
        },
        (e: Error) => {
          setError(e.message);
          next();
        },
      );
    };
    tick();
    const onAbort = () => exit();
    signal.addEventListener('abort', onAbort);
    return () => signal.removeEventListener('abort', onAbort);
  }, []);
  return (
    <Box flexDirection="column">
      <Text bold>
        {heading(seen)}
        <Text dimColor> · Ctrl-C to stop</Text>
      </Text>
      {note ? <Text color="yellow">{printable(note, { inline: true })}</Text> : null}
      {rows.length === 0 ? <Text dimColor>{empty}</Text> : null}
      {rows.map((r) => (
        <Text key={rowKey(r)}>{row(r)}</Text>
      ))}
      {error ? <Text color="red">{printable(error, { inline: true })}</Text> : null}
    </Box>
  );
}

export async function liveView<T>(props: Props<T>): Promise<void> {
  const app = renderLive(<Live {...props} />);
  await app.waitUntilExit();
}

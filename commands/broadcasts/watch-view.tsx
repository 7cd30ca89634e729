// `svc broadcasts watch` on a terminal: a progress bar of copies handed off, the rate, the counts
// and the time left, redrawn as the campaign moves; it leaves once the campaign is sent or cancelled.
import React, { useEffect, useState } from 'react';
import { Box, Text, useApp } from 'ink';
import { renderLive } from '../ink-screen.js';
import { printable } from '../terminal.js';
import type { Progress } from './progress.js';

const WIDTH = 40;

function Watch({ next, signal }: { next: () => Promise<Progress>; signal: AbortSignal }) {
  const { exit } = useApp();
  const [p, setP] = useState<Progress | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    const tick = () => {
      if (signal.aborted) return exit();
      next().then(
        (got) => {
          setP(got);
          setError(null);
          if (got.finished) setTimeout(exit, 0);
          else tick();
        },
        (e: Error) => {
          setError(e.message);
          setTimeout(tick, 1000);
        },
      );
    };
    tick();
    const onAbort = () => exit();
    signal.addEventListener('abort', onAbort);
    return () => signal.removeEventListener('abort', onAbort);
  }, []);
  if (!p) return <Text dimColor>reading the campaign…</Text>;
  const c = p.campaign.counts!;
  const share = p.total ? Math.min(1, p.done / p.total) : 1;
  const filled = Math.round(share * WIDTH);
  return (
    <Box flexDirection="column">
      <Text bold>
        {printable(p.campaign.subject, { inline: true }).slice(0, 60)} <Text dimColor>· {p.campaign.id}</Text>
      </Text>
      <Text>
        <Text color="green">{'█'.repeat(filled)}</Text>
        <Text dimColor>{'░'.repeat(WIDTH - filled)}</Text> {Math.floor(share * 100)}% · {p.done}/{p.total} · {p.campaign.status}
        {p.rate !== null ? ` · ${Math.round(p.rate)}/s` : ''}
        {p.eta !== null && !p.finished ? ` · about ${p.eta} s left` : ''}
      </Text>
      <Text>
        <Text color="green">sent {c.sent}</Text> · <Text color="red">bounced {c.bounced}</Text> · queued {c.queued} · opened {c.opened} ·
        clicked {c.clicked} · <Text color="yellow">unsubscribed {c.unsubscribed}</Text>
      </Text>
      {error ? (
        <Text color="red">{printable(error, { inline: true })}</Text>
      ) : (
        <Text dimColor>{p.finished ? 'done' : 'Ctrl-C to stop watching (the campaign goes on)'}</Text>
      )}
    </Box>
  );
}

export async function watchView(next: () => Promise<Progress>, signal: AbortSignal): Promise<void> {
  const app = renderLive(<Watch next={next} signal={signal} />);
  await app.waitUntilExit();
}

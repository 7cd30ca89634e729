// `svc domains verify --watch`: the five checks, re-run every few seconds until all pass or Ctrl-C.
// Loaded only for --watch, so other commands never pay for ink and react.
import React, { useEffect, useState } from 'react';
import { Box, Text, useApp } from 'ink';
import { renderLive } from '../ink-screen.js';
import type { DomainView } from '../../src/domains/domains.js';

const colour: Record<string, string> = { Verified: 'green', Recommended: 'cyan', Problem: 'red', Waiting: 'yellow' };

function Watch({
  check,
  onDone,
  intervalMs,
}: {
  check: () => Promise<{ view: DomainView; passed: boolean }>;
  onDone: (passed: boolean) => void;
  intervalMs: number;
}) {
  const { exit } = useApp();
  const [state, setState] = useState<{ view: DomainView; passed: boolean } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [round, setRound] = useState(0);
  useEffect(() => {
    let cancelled = false;
    let timer: NodeJS.Timeout | undefined;
    check().then(
      (r) => {
        if (cancelled) return;
        setState(r);
        setError(null);
        if (!r.passed) timer = setTimeout(() => setRound((n) => n + 1), intervalMs);
      },
      (e: Error) => {
        if (cancelled) return;
        setError(e.message);
        timer = setTimeout(() => setRound((n) => n + 1), intervalMs);
      },
    );
    return () => {
      cancelled = true;
      if (timer) clearTimeout(timer);
    };
  }, [round]);
  // Exit only after the passing result has been drawn.
  useEffect(() => {
    if (state?.passed) {
      onDone(true);
      exit();
    }
  }, [state]);

  if (!state) return <Text>checking…</Text>;
  const v = state.view;
  return (
    <Box flexDirection="column">
      <Text bold>
        {v.domain} <Text color={state.passed ? 'green' : 'yellow'}>{state.passed ? 'verified' : 'waiting'}</Text>
        <Text dimColor>
          {' '}
          checked {v.checked_at} · round {round + 1}
          {state.passed ? '' : ' · Ctrl-C to stop'}
        </Text>
      </Text>
      {v.records.map((r) => (
        <Box key={r.purpose} flexDirection="column">
          <Text>
            <Text color={colour[r.status ?? ''] ?? 'gray'}>{(r.status ?? '-').padEnd(12)}</Text>
            {r.purpose.padEnd(10)} {r.type.padEnd(4)} {r.fqdn}
          </Text>
          {r.note ? (
            <Text dimColor>
              {'            '}
              {r.note}
            </Text>
          ) : null}
        </Box>
      ))}
      {error ? <Text color="red">{error}</Text> : null}
    </Box>
  );
}

/** Resolves true when all five pass, false when the person stopped it first (Ctrl-C). */
export async function watchDomain(check: () => Promise<{ view: DomainView; passed: boolean }>, intervalMs: number): Promise<boolean> {
  let passed = false;
  const app = renderLive(<Watch check={check} onDone={(p) => (passed = p)} intervalMs={intervalMs} />);
  await app.waitUntilExit();
  return passed;
}

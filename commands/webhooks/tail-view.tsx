// `svc webhooks tail` on a terminal: the latest attempts as they happen, with counts.
import React from 'react';
import { Text } from 'ink';
import type { AttemptView } from '../../src/webhooks/webhooks.js';
import { liveView } from '../live-view.js';
import type { Notes } from '../follow.js';
import { printable } from '../terminal.js';

export function tailView(poll: () => Promise<AttemptView[]>, wait: () => Promise<void>, signal: AbortSignal, notes: Notes): Promise<void> {
  return liveView<AttemptView>({
    notes,
    poll,
    wait,
    signal,
    rowKey: (r) => r.id,
    empty: 'waiting for attempts…',
    heading: (seen) => {
      const failed = seen.filter((r) => !r.ok).length;
      return (
        <>
          webhook deliveries <Text color="green">{seen.length - failed} delivered</Text> ·{' '}
          <Text color={failed ? 'red' : 'gray'}>{failed} failed</Text>
        </>
      );
    },
    row: (r) => (
      <>
        <Text dimColor>{r.attempted_at.slice(11, 23)} </Text>
        <Text color={r.ok ? 'green' : 'red'}>{String(r.status_code ?? '---').padEnd(4)}</Text>
        {r.event.padEnd(16)} {r.kind.padEnd(6)} <Text dimColor>{r.endpoint_id.slice(0, 8)}</Text> {String(r.duration_ms).padStart(5)} ms
        {r.error ? <Text color="red"> {printable(r.error, { inline: true })}</Text> : null}
      </>
    ),
  });
}

// `svc inbox watch` on a terminal: new items as they arrive, coloured by kind, with counts.
import React from 'react';
import { Text } from 'ink';
import type { inboxListItem } from '../../src/inbox/inbox.js';
import { liveView } from '../live-view.js';
import type { Notes } from '../follow.js';

type Row = ReturnType<typeof inboxListItem>;
const COLOR: Record<string, string> = { reply: 'green', mail: 'white', auto_reply: 'gray', bounce: 'red', complaint: 'magenta' };
/** Subjects are the senders' words: shown on one line, without control characters. */
const oneLine = (s: string) => s.replace(/[\u0000-\u001f\u007f-\u009f]/g, ' ');

export function watchView(poll: () => Promise<Row[]>, wait: () => Promise<void>, signal: AbortSignal, notes: Notes): Promise<void> {
  return liveView<Row>({
    notes,
    poll,
    wait,
    signal,
    rowKey: (r) => r.id,
    empty: 'waiting for mail…',
    heading: (seen) => (
      <>
        team inbox · {seen.length} new · <Text color="green">{seen.filter((r) => r.kind === 'reply').length} replies</Text> ·{' '}
        <Text color="red">{seen.filter((r) => r.kind === 'bounce').length} bounces</Text>
      </>
    ),
    row: (r) => (
      <>
        <Text dimColor>{r.created_at.slice(11, 19)} </Text>
        <Text color={COLOR[r.kind] ?? 'white'}>{r.kind.padEnd(10)}</Text> {oneLine(r.from).slice(0, 40).padEnd(40)}{' '}
        {oneLine(r.subject).slice(0, 60)}
      </>
    ),
  });
}

// Event names of spec.md "Events" and what an endpoint subscribes to.
import { SvcError } from '../errors.js';
import { ALL_MESSAGE_EVENTS, RESERVED_EVENTS, SENT_EVENTS } from '../model/event.js';

const KNOWN = new Set<string>([...SENT_EVENTS, ...RESERVED_EVENTS, ALL_MESSAGE_EVENTS]);

/** `--events a,b`: known names, deduplicated, in the order given; none given = `message.*`. */
export function parseEvents(raw: string | undefined): string[] {
  if (raw === undefined) return [ALL_MESSAGE_EVENTS];
  const names = [
    ...new Set(
      raw
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    ),
  ];
  if (!names.length) throw new SvcError('invalid_argument', 'events: name at least one event');
  for (const n of names) {
    if (!KNOWN.has(n)) throw new SvcError('invalid_argument', `unknown event '${n}' (known: ${[...KNOWN].join(', ')})`);
  }
  return names.includes(ALL_MESSAGE_EVENTS) ? [ALL_MESSAGE_EVENTS] : names;
}

// JSON schemas of the team inbox's answers (svc additions to spec.md; src/inbox/inbox.ts), in the
// manner of schemas.ts: open objects, every field the views write.
import { Type } from 'typebox';
import { Nullable, OneOf, Time, open } from './schemas.js';

/** An item of the team inbox in a list (svc addition; src/inbox/inbox.ts inboxListItem). */
export const InboxListItem = Type.Object(
  {
    id: Type.String(),
    folder: OneOf(['inbox', 'sent'] as const),
    thread_id: Type.String(),
    from: Type.String(),
    from_name: Nullable(Type.String({ description: "the From header's display name, when it has one" })),
    to: Type.Array(Type.String()),
    subject: Type.String(),
    kind: Type.String({ description: 'mail, reply, auto_reply, bounce, complaint or sent' }),
    message_id: Nullable(Type.String()),
    created_at: Time,
    message_ref: Nullable(Type.String({ description: 'the message record it is about, when one matched' })),
    note: Nullable(Type.String()),
    size: Type.Integer({ description: 'bytes kept (0 for Sent copies)' }),
    campaign: Type.Optional(
      Type.Object(
        {
          id: Type.String(),
          list_id: Type.String(),
          status: Type.String(),
          recipients: Type.Integer({ description: 'active subscribers when it was sent' }),
          copies: Type.Integer({ description: 'copies made so far' }),
        },
        { ...open, description: 'a Sent row that stands for a broadcast: one row per campaign, whatever its size' },
      ),
    ),
  },
  { ...open, description: 'svc addition' },
);

/** What vouched for a received message (src/model/inbox.ts InboundAuth). */
export const InboundAuth = Type.Object(
  {
    verdict: OneOf(['pass', 'fail', 'none'] as const, { description: 'pass: the From domain vouches for it; fail: DMARC fails' }),
    spf: Type.String(),
    dkim: Type.String(),
    dmarc: Type.String(),
    arc: Type.String(),
    policy: Nullable(Type.String({ description: "the From domain's DMARC policy when DMARC failed" })),
    from_domain: Nullable(Type.String()),
    summary: Type.String({ description: 'why, in one sentence' }),
  },
  open,
);

/** One item with its bodies and headers (inboxItemView). */
export const InboxItem = Type.Object(
  {
    ...InboxListItem.properties,
    cc: Type.Array(Type.String(), { description: 'addresses in Cc' }),
    in_reply_to: Nullable(Type.String({ description: 'the In-Reply-To id' })),
    references: Type.Array(Type.String(), { description: 'the References ids' }),
    headers: Type.String({ description: 'the header block as received (as composed, for a Sent copy)' }),
    text: Nullable(Type.String({ description: 'the text part' })),
    html: Nullable(Type.String({ description: 'the HTML part as received (never rendered by svc)' })),
    envelope: Nullable(
      Type.Object(
        { mail_from: Type.String(), rcpt_to: Type.Array(Type.String()), remote_ip: Nullable(Type.String()) },
        { ...open, description: 'the SMTP envelope of a received item' },
      ),
    ),
    auth: Nullable(InboundAuth),
    raw: Type.Optional(
      Nullable(Type.String({ description: 'with ?raw=1: the message as received, base64 (null for a Sent copy of API mail)' })),
    ),
  },
  { ...open, description: 'svc addition' },
);

/** A thread of the team inbox in a list (svc addition). */
export const InboxThreadSummary = Type.Object(
  {
    thread_id: Type.String(),
    subject: Type.String(),
    count: Type.Integer(),
    last_at: Time,
    last_from: Type.String(),
    last_kind: Type.String(),
    received_at: Nullable(Time),
    read_at: Nullable(Time),
    archived_at: Nullable(Time),
    unread: Type.Boolean(),
    archived: Type.Boolean(),
  },
  { ...open, description: 'svc addition' },
);

/** One thread: its state and its items of both folders, oldest first (svc addition). */
export const InboxThread = Type.Object(
  {
    thread_id: Type.String(),
    read_at: Nullable(Time),
    archived_at: Nullable(Time),
    unread: Type.Boolean(),
    archived: Type.Boolean(),
    items: Type.Array(InboxListItem),
  },
  { ...open, description: 'svc addition' },
);

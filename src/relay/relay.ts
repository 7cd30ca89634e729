// src/relay/: the SMTP relay's rules and its TLS identity (the listener is daemon/relay.ts).
//
// The SMTP relay's rules (spec.md "SMTP relay"), free of the protocol: who may log in, who may send,
// how a message becomes a send. daemon/relay.ts speaks SMTP and maps these errors to replies.
import { SvcError } from '../errors.js';
import type { DepsOf } from '../deps.js';
import type { Principal } from '../auth/authenticate.js';
import { authenticateKey } from '../auth/authenticate.js';
import { hasScope } from '../auth/scopes.js';
import type { Workspace } from '../model/workspace.js';
import { parseMailbox } from '../mail/address.js';
import { authorizeSender } from '../send/sender.js';
import type { Send, SendResult } from '../send/pipeline.js';
import type { Party, SendRequest } from '../send/validate.js';
import { sendWindows } from '../workspaces/send-quota.js';
import { parseRelayed } from './parse.js';

export const RELAY_MAX_SIZE = 25 * 1024 * 1024;
export const RELAY_MAX_RECIPIENTS = 1000;

const NO_CRLF = /[\r\n]+/g;

/**
 * Bare LF and bare CR line ends become CRLF (Postfix 3.9's default): Python's smtplib and many PHP
 * senders send bare LF. This runs on data smtp-server has already ended at CRLF.CRLF and nowhere
 * else, so a smuggling payload (`\n.\r\n`, `\n.\n`, `\r.\r\n`) stays inside the one message it
 * came in, as text, and is dot-stuffed like any other line when the message is handed on.
 */
export function normalizeLineBreaks(raw: Buffer): Buffer {
  let bare = false;
  for (let i = raw.indexOf(0x0a); i !== -1 && !bare; i = raw.indexOf(0x0a, i + 1)) if (i === 0 || raw[i - 1] !== 0x0d) bare = true;
  for (let i = raw.indexOf(0x0d); i !== -1 && !bare; i = raw.indexOf(0x0d, i + 1)) if (raw[i + 1] !== 0x0a) bare = true;
  if (!bare) return raw;
  return Buffer.from(raw.toString('latin1').replace(/\r\n|\r|\n/g, '\r\n'), 'latin1');
}

export function relayService(deps: DepsOf<'keys' | 'usage' | 'domains' | 'addresses'>, send: Send) {
  const { store } = deps;

  return {
    /** AUTH: the password is an API key with scope send; the username is ignored. */
    async authenticate(password: string): Promise<Principal> {
      // invalid_key_format and invalid_key carry their 535 replies in the registry.
      const p = await authenticateKey(store, password);
      if (!hasScope(p.scopes, 'send')) throw new SvcError('missing_permission', 'missing permission: send');
      return p;
    },

    /** MAIL FROM: an active registered address on a verified domain of the workspace. */
    async checkSender(ws: Workspace, address: string): Promise<string> {
      const m = parseMailbox(address);
      if ('error' in m) throw new SvcError('invalid_sender');
      try {
        await authorizeSender(store, ws, m.address);
      } catch (e) {
        // A read-only (trial) workspace is refused at MAIL FROM like any unauthorised sender.
        if (e instanceof SvcError && e.kind === 'forbidden') throw new SvcError('sender_not_authorized', e.message);
        throw e;
      }
      return m.address;
    },

    /** How many more recipients the send quota takes now (Infinity when unlimited). */
    async remainingQuota(ws: Workspace): Promise<number> {
      const windows = sendWindows(ws, deps.clock.now());
      const used = await store.usage.get(ws.id, windows.map((w) => w.key));
      return Math.min(...windows.map((w) => (w.limit === null ? Infinity : w.limit - (used[w.key] ?? 0))));
    },

    checkRecipient(address: string): string {
      const m = parseMailbox(address);
      if ('error' in m) throw new SvcError('invalid_recipient');
      return m.address;
    },

    /**
     * DATA: the message becomes a send. Recipients named in To: or Cc: are shown there, every other
     * one is bcc; Subject: is the subject; text and HTML parts are the body (multipart/alternative
     * is parsed, attachments are dropped and noted). From:, Bcc:, Reply-To:, display names and
     * custom headers are ignored.
     */
    async submit(ws: Workspace, from: string, recipients: string[], raw: Buffer, key?: { id: string; prefix: string }): Promise<SendResult> {
      const mail = await parseRelayed(normalizeLineBreaks(raw));
      const listed = new Set(
        [...(mail.to ?? []), ...(mail.cc ?? [])]
          .flatMap((a) => ('group' in a && a.group ? a.group : [a]))
          .map((a) => (a as { address?: string }).address?.toLowerCase())
          .filter((a): a is string => !!a),
      );
      const inHeader = (field: 'to' | 'cc') =>
        new Set(((mail[field] ?? []) as Array<{ address?: string; group?: Array<{ address?: string }> }>).flatMap((a) => a.group ?? [a]).map((a) => a.address?.toLowerCase()));
      const to = inHeader('to');
      const cc = inHeader('cc');
      const party = (address: string): Party => ({ name: null, address });
      const req: SendRequest = {
        from: party(from),
        to: recipients.filter((r) => to.has(r.toLowerCase())).map(party),
        cc: recipients.filter((r) => !to.has(r.toLowerCase()) && cc.has(r.toLowerCase())).map(party),
        bcc: recipients.filter((r) => !listed.has(r.toLowerCase())).map(party),
        // A decoded subject can carry line breaks (in encoded words); they never reach a header.
        subject: (mail.subject ?? '').replace(NO_CRLF, ' ').slice(0, 998),
        html: mail.html ?? null,
        text: mail.text ?? (mail.html ? null : ''),
        // Attachments and inline images go on whole (more than spec.md's "garbled"): the same bytes
        // once decoded and the same Content-Type parameters (./parse.ts).
        attachments: (mail.attachments ?? []).map((a) => ({
          filename: a.filename ? a.filename.replace(NO_CRLF, ' ') : null,
          content_type: /^[\w.+-]+\/[\w.+-]+$/.test(a.mimeType) ? a.mimeType : 'application/octet-stream',
          disposition: a.disposition === 'inline' && a.contentId ? ('inline' as const) : ('attachment' as const),
          cid: a.contentId ? a.contentId.replace(/^<|>$/g, '').replace(NO_CRLF, '') : null,
          content: a.content.toString('base64'),
          ...(Object.keys(a.params).length ? { params: a.params } : {}),
        })),
      };
      const notes: string[] = [];
      // A quota refusal is deliberately temporary over SMTP (452 4.5.3 with its text, spec).
      return send(ws, req, { source: 'relay', notes, key: key ?? null });
    },
  };
}

export type RelayService = ReturnType<typeof relayService>;

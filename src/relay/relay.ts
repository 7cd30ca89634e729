// src/relay/: the SMTP relay's rules and its TLS identity (the listener is daemon/relay.ts).
//
// The SMTP relay's rules (spec.md "SMTP relay"), free of the protocol: who may log in, who may send,
// how a message becomes a send. daemon/relay.ts speaks SMTP and maps these errors to replies.
import { SvcError } from '../errors.js';
import type { DepsOf } from '../deps.js';
import type { Principal } from '../auth/authenticate.js';
import { authenticateHash, authenticatePresented } from '../auth/authenticate.js';
import { hasScope } from '../auth/scopes.js';
import type { Workspace } from '../model/workspace.js';
import { parseMailbox } from '../mail/address.js';
import { authorizeSender } from '../send/sender.js';
import type { Party, Send, SendRequest, SendResult } from '../model/send.js';
import { sendWindows, windowsOfToday } from '../workspaces/send-quota.js';
import { addresses, fieldsOf, headerBlock, headerText } from '../mail/header-block.js';
import { normalizeLineBreaks } from '../mail/line-breaks.js';

const NO_CRLF = /[\r\n]+/g;

function maySend(p: Principal): Principal {
  if (!hasScope(p.scopes, 'send')) throw new SvcError('missing_permission', 'missing permission: send');
  return p;
}

export function relayService(deps: DepsOf<'keys' | 'usage' | 'domains' | 'addresses'>, send: Send) {
  const { store } = deps;
  const windowsOf = windowsOfToday(sendWindows);

  return {
    /**
     * AUTH: the password is an API key with scope send; the username is ignored. The key's hash is
     * what the session keeps to check it again (`reauthenticate`), never the key.
     */
    async authenticate(password: string): Promise<{ principal: Principal; keyHash: string }> {
      // invalid_key_format and invalid_key carry their 535 replies in the registry.
      const { principal, hash } = await authenticatePresented(store, password);
      return { principal: maySend(principal), keyHash: hash };
    },

    /** MAIL FROM: the session's key again (revocation takes effect on the next transaction). */
    async reauthenticate(keyHash: string): Promise<Principal> {
      return maySend(await authenticateHash(store, keyHash));
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
      const windows = windowsOf(ws, deps.clock.now());
      const used = await store.usage.get(
        ws.id,
        windows.map((w) => w.key),
      );
      return Math.min(...windows.map((w) => (w.limit === null ? Infinity : w.limit - (used[w.key] ?? 0))));
    },

    checkRecipient(address: string): string {
      const m = parseMailbox(address);
      if ('error' in m) throw new SvcError('invalid_recipient');
      return m.address;
    },

    /**
     * DATA: the message becomes a send. Recipients named in To: or Cc: are shown there, every other
     * one is bcc; Subject: is the subject. Only the header block is read here, before the 250: the
     * message is kept as it came (line ends made CRLF) and its text, HTML and attachments are read
     * when it is composed, off the main thread (send/compose/relayed.ts). From:, Bcc:, Reply-To:,
     * display names and custom headers are ignored.
     */
    async submit(
      ws: Workspace,
      from: string,
      recipients: string[],
      raw: Buffer,
      key?: { id: string; prefix: string },
    ): Promise<SendResult> {
      const message = normalizeLineBreaks(raw);
      // A header block past HEADER_MAX is read up to it (To, Cc and Subject come first in real mail).
      const fields = fieldsOf(headerBlock(message).block);
      const listed = (name: 'to' | 'cc') => new Set(fields.all(name).flatMap((v) => addresses(headerText(v))));
      const to = listed('to');
      const cc = listed('cc');
      const party = (address: string): Party => ({ name: null, address });
      const req: SendRequest = {
        from: party(from),
        to: recipients.filter((r) => to.has(r.toLowerCase())).map(party),
        cc: recipients.filter((r) => !to.has(r.toLowerCase()) && cc.has(r.toLowerCase())).map(party),
        bcc: recipients.filter((r) => !to.has(r.toLowerCase()) && !cc.has(r.toLowerCase())).map(party),
        // A decoded subject can carry line breaks (in encoded words); they never reach a header.
        subject: headerText(fields.get('subject')).replace(NO_CRLF, ' ').slice(0, 998),
        html: null,
        text: null,
        raw: message.toString('base64'),
      };
      // A quota refusal is deliberately temporary over SMTP (452 4.5.3 with its text, spec).
      return send(ws, req, { source: 'relay', notes: [], key: key ?? null });
    },
  };
}

export type RelayService = ReturnType<typeof relayService>;

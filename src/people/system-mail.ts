// svc's own mail: invitations to the web app and the trial's warnings. It comes
// from the configured system sender (--system-sender, e.g. svc@{service_domain}), which must be
// an active address on a verified domain of a workspace of the operator's: the message goes through
// the one pipeline from that workspace, DKIM-signed like any other, with source `system`, and is
// never counted against a quota. Each message has a key: sent again with the same key (a retry,
// another daemon) it is not sent twice (the Idempotency-Key's claim). Without a usable system
// sender nothing is sent; the daemon says so once, and the caller shows the link instead.
import type { DepsOf } from '../deps.js';
import type { Workspace } from '../model/workspace.js';
import type { Send } from '../model/send.js';
import { idempotentSend } from '../send/idempotent.js';

export interface SystemMessage {
  to: string;
  subject: string;
  text: string;
}

export function systemMail(deps: DepsOf<'addresses' | 'workspaces' | 'idempotency'>, send: Send) {
  const { store, config, log } = deps;
  const idempotent = idempotentSend(deps);
  const said = new Set<string>();
  const once = (why: string) => {
    if (said.has(why)) return;
    said.add(why);
    log.warn(why);
  };

  /** The workspace the system sender is an active address of, or null (said once when `say`). */
  async function sender(say: boolean): Promise<{ ws: Workspace; address: string } | null> {
    const address = config.systemSender;
    if (!address) {
      if (say) once("no --system-sender: svc's own mail (invitations, confirmations without a list sender, trial warnings) is not sent");
      return null;
    }
    const names = new Map((await store.workspaces.list()).map((w) => [w.id, w]));
    const ws = (await store.addresses.everywhere(address))
      .filter((a) => a.status === 'active')
      .map((a) => names.get(a.workspace_id))
      .find((w) => w !== undefined);
    if (!ws && say)
      once(
        `--system-sender ${address} is not an active address of any workspace: svc's own mail is not sent (svc addresses add ${address} in the operator's workspace)`,
      );
    return ws ? { ws, address } : null;
  }

  return {
    /** Says once, in the log, when there is no usable system sender (the daemon asks at start). */
    check: async () => void (await sender(true)),
    /** Whether a system sender can send now (the app then mails invitations rather than show links); says nothing. */
    ready: async () => (await sender(false)) !== null,
    /**
     * Sends one message of svc's own, once per `key`; false when there is no usable system
     * sender. A refusal of the pipeline (the sender's domain no longer verified) is thrown.
     */
    async send(key: string, m: SystemMessage): Promise<boolean> {
      const s = await sender(true);
      if (!s) return false;
      await idempotent(s.ws, key, m, (claim) =>
        send(
          s.ws,
          {
            from: { name: 'svc', address: s.address },
            to: [{ name: null, address: m.to }],
            cc: [],
            bcc: [],
            subject: m.subject,
            text: m.text,
            html: null,
          },
          { source: 'system', idempotency: claim },
        ),
      );
      return true;
    },
  };
}

export type SystemMail = ReturnType<typeof systemMail>;

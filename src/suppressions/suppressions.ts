// src/suppressions/: the workspace suppression list.
//
// The workspace suppression list (spec.md): never mailed; a permanent bounce and an unsubscribe add
// an address, operators add and remove by hand.
import { SvcError } from '../errors.js';
import type { DepsOf } from '../deps.js';
import type { Suppression } from '../model/suppression.js';
import type { Workspace } from '../model/workspace.js';
import { parseMailbox } from '../mail/address.js';

// A bounce's evidence: the reply (detail), the message that bounced and the kind of refusal.
const view = (s: Suppression) => ({
  address: s.address,
  reason: s.reason,
  class: s.class ?? null,
  message_id: s.message_id ?? null,
  detail: s.detail,
  created_at: s.created_at,
});

export function suppressionService({ store, clock }: DepsOf<'suppressions'>) {
  const normal = (input: string) => {
    const m = parseMailbox(input.trim());
    if ('error' in m) throw new SvcError('invalid_argument', `invalid address '${input.slice(0, 80)}': ${m.error}`);
    return m.address.toLowerCase();
  };
  return {
    async list(ws: Workspace) {
      return (await store.suppressions.list(ws.id)).map(view);
    },
    async add(ws: Workspace, address: string, detail: string | null = null) {
      return view(
        await store.suppressions.add({
          workspace_id: ws.id,
          address: normal(address),
          reason: 'manual',
          detail,
          created_at: clock.now().toISOString(),
        }),
      );
    },
    async remove(ws: Workspace, address: string) {
      const a = normal(address);
      if (!(await store.suppressions.remove(ws.id, a))) throw new SvcError('not_found', `${a} is not on the suppression list`);
      return { address: a, removed: true };
    },
  };
}

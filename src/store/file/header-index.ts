// File store: records by workspace and Message-ID header (a send's records share one; replies and
// bounce reports find them by it). Nested maps, and a lone record held as itself: most headers
// belong to one record (every copy of list mail has its own), and a joined `ws mid` key plus an
// array per header cost about 100 bytes a record, 10 MB for a 100,000-copy broadcast.
import type { Message } from '../../model/message.js';

export class HeaderIndex {
  readonly #byWorkspace = new Map<string, Map<string, Message | Message[]>>();

  add(m: Message): void {
    let ws = this.#byWorkspace.get(m.workspace_id);
    if (!ws) this.#byWorkspace.set(m.workspace_id, (ws = new Map()));
    const had = ws.get(m.message_id);
    if (!had) ws.set(m.message_id, m);
    else if (Array.isArray(had)) had.push(m);
    else ws.set(m.message_id, [had, m]);
  }

  get(workspaceId: string, messageId: string): Message[] {
    const had = this.#byWorkspace.get(workspaceId)?.get(messageId);
    return !had ? [] : Array.isArray(had) ? had : [had];
  }

  /** Forgets the header's records (a purge removes a send's records together). */
  delete(workspaceId: string, messageId: string): void {
    const ws = this.#byWorkspace.get(workspaceId);
    ws?.delete(messageId);
    if (ws && !ws.size) this.#byWorkspace.delete(workspaceId);
  }
}

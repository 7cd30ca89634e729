// The embedded file store: assembles one file per aggregate over the store's plumbing. The small
// aggregates share svc.json (doc.ts); the high-volume ones write day-partitioned journals
// (journal.ts) that are replayed through a registry (replay.ts) when the store opens, so a write
// never re-serialises the whole store. The directory's lock (lock.ts) keeps one owner.
import { join } from 'node:path';
import type { Store, StoreGroups } from '../types.js';
import { fileAddresses } from './addresses.js';
import { filePeople } from './people.js';
import { describeBadLines, setAside } from './quarantine.js';
import type { DocFile } from './doc.js';
import { fileDaemons } from './daemons.js';
import { fileDomains } from './domains.js';
import type { SecretBox } from '../secret-box.js';
import { fileIdempotency } from './idempotency.js';
import { Journal } from './journal.js';
import type { BadLine } from './journal-scan.js';
import { fileKeys } from './keys.js';
import type { StoreLock, LockRole } from './lock.js';
import { openDataFile, type DataFile } from './doc-store.js';
import { fileMessages } from './messages.js';
import { fileRateLimit } from './rate-limit.js';
import { Replay, type Line } from './replay.js';
import { fileSuppressions } from './suppressions.js';
import { fileTls } from './tls.js';
import { fileWebhooks } from './webhooks.js';
import { fileWorkspaces, type DeletionHooks } from './workspaces.js';
import { fileTracking } from './tracking.js';
import { fileSecrets } from './secrets.js';
import { fileInbox, type FileInbox } from './inbox.js';
import { fileThreadMarks } from './thread-marks.js';
import { fileLists, subscriberLines, type FileLists } from './lists.js';
import { fileCampaigns } from './campaigns.js';
import { fileSequences } from './sequences.js';
import { SNAPSHOT_FILE } from './inbox-snapshot.js';

export { DATA_FILE } from './doc.js';

/**
 * Below this many received items the inbox journal is read at start (well under a second) and no
 * snapshot of its index is kept.
 */
export const INBOX_SNAPSHOT_MIN = 20_000;

// The groups are assembled in the constructor; the interface gives the class their types.
export interface FileStore extends StoreGroups {}

export class FileStore implements Store {
  readonly describe: string;
  readonly #doc: DocFile;
  readonly #lock: StoreLock;
  readonly #journals: Array<Journal<Line>>;
  readonly #inbox: FileInbox;
  readonly #lists: FileLists;
  readonly #dropJobs: (workspaceId: string) => void;
  #closed = false;
  /** Lines of deleted workspaces dropped (or written without their records) as the store opened. */
  prunedLines = 0;

  private constructor(
    readonly dir: string,
    doc: DocFile,
    lock: StoreLock,
    mail: { journal: Journal<Line>; replay: Replay },
    held: { journal: Journal<Line>; replay: Replay },
    inbox: { journal: Journal<Line>; replay: Replay },
    subs: { journal: Journal<Line>; replay: Replay },
    camps: { journal: Journal<Line>; replay: Replay },
    seqs: { journal: Journal<Line>; replay: Replay },
    now: () => Date,
    box: SecretBox | null,
    inboxSnapshotMin: number,
  ) {
    this.describe = `file:${dir}`;
    this.#doc = doc;
    this.#lock = lock;
    this.#journals = [mail.journal, held.journal, inbox.journal, subs.journal, camps.journal, seqs.journal];
    // Read on first use (lists.ts); its unreadable lines go aside when it is.
    this.#lists = fileLists(doc, subs.journal, subs.replay, () => setAside(dir, 'subscribers', subs.journal.problems));
    const suppressions = fileSuppressions(held.journal, held.replay, now);
    const msgs = fileMessages(mail.journal, mail.replay, inbox.replay, suppressions, now);
    this.#inbox = fileInbox(
      inbox.journal,
      inbox.replay,
      mail.replay,
      mail.journal,
      suppressions.store,
      (fn) => msgs.lookup.onPurge((_ids, _contents, days) => fn(days)),
      inboxSnapshotMin,
      fileThreadMarks(doc),
    );
    const campaigns = fileCampaigns(camps.journal, camps.replay, mail.replay, msgs.lookup, now);
    const sequences = fileSequences(seqs.journal, seqs.replay, mail.replay, now);
    const webhookGroups = fileWebhooks(doc, mail.journal, mail.replay, msgs.outbox);
    // A deleted workspace: at once its queued mail is not handed off and its endpoints (with their
    // jobs) go the way a removal takes them; at its purge its lists' journals go likewise and its
    // records leave memory. The rest of svc.json goes in workspaces.ts.
    const endpointsGone = async (wsId: string): Promise<number> => {
      let n = 0;
      for (const e of doc.data.webhook_endpoints.filter((x) => x.workspace_id === wsId))
        if (await webhookGroups.endpoints.remove(wsId, e.id)) n++;
      return n;
    };
    const hooks: DeletionHooks = {
      end: async (wsId) => {
        msgs.lookup.dropJobs(wsId);
        await endpointsGone(wsId);
      },
      forget: async (wsId) => {
        let n =
          msgs.lookup.forgetWorkspace(wsId) +
          suppressions.forgetWorkspace(wsId) +
          (await this.#inbox.forgetWorkspace(wsId)) +
          (await endpointsGone(wsId));
        for (const l of doc.data.lists.filter((x) => x.workspace_id === wsId)) if (await this.#lists.lists.remove(wsId, l.id)) n++;
        return n;
      },
    };
    this.#dropJobs = (wsId) => msgs.lookup.dropJobs(wsId);
    const groups: StoreGroups = {
      // Loaded when a backup is taken (or a deleted workspace's lines are pruned, below), not at every open.
      backup: { snapshot: async (out) => (await import('./snapshot.js')).takeSnapshot(dir, out) },
      daemons: fileDaemons(),
      workspaces: fileWorkspaces(doc, hooks),
      keys: fileKeys(doc),
      domains: fileDomains(doc, box),
      addresses: fileAddresses(doc),
      people: filePeople(doc),
      tls: fileTls(doc, box),
      suppressions: suppressions.store,
      // A fan-out batch's progress is kept in the campaigns journal too once its copies are written.
      // (A sequence step's send, its enrolment's move likewise.)
      messages: { ...msgs.messages, accept: sequences.keepSteps(campaigns.keepProgress(msgs.messages.accept)) },
      campaigns: campaigns.store,
      sequences: sequences.store,
      queue: msgs.queue,
      outbox: msgs.outbox,
      usage: msgs.usage,
      ...webhookGroups,
      tracking: fileTracking(mail.journal, mail.replay, inbox.replay, msgs.lookup),
      secrets: fileSecrets(doc, box),
      idempotency: fileIdempotency(mail.replay),
      rateLimit: fileRateLimit(),
      inbox: this.#inbox.store,
      lists: this.#lists.lists,
      subscribers: this.#lists.subscribers,
    };
    Object.assign(this, groups);
  }

  /** Takes the directory's lock and loads it; throws LockHeldError when another process owns it. */
  /** `encryptionKey`: DKIM private keys in svc.json are kept sealed with it (secret-box.ts). */
  /** `inboxSnapshotMin`: the least received items for which the inbox index is snapshotted at close (INBOX_SNAPSHOT_MIN but in tests). */
  /** `data`: the data file openDataFile opened already (its lock held), for the rest of the open. */
  static async open(
    dir: string,
    role: LockRole,
    opts: { now?: () => Date; encryptionKey?: Buffer; inboxSnapshotMin?: number; command?: string; data?: DataFile } = {},
  ): Promise<FileStore> {
    const now = opts.now ?? (() => new Date());
    const { doc, lock, box } = opts.data ?? (await openDataFile(dir, role, opts));
    try {
      // The aggregates register their line kinds as the store is assembled; then the journals are
      // read through them.
      const mailReplay = new Replay();
      const heldReplay = new Replay();
      const inboxReplay = new Replay();
      const mail = await Journal.open<Line>(join(dir, 'mail'), { validate: mailReplay.validate });
      const held = await Journal.open<Line>(join(dir, 'suppressions'), { validate: heldReplay.validate });
      const inbox = await Journal.open<Line>(join(dir, 'inbox'), { validate: inboxReplay.validate });
      const subsReplay = new Replay();
      subscriberLines(subsReplay);
      const subs = await Journal.open<Line>(join(dir, 'subscribers'), { validate: subsReplay.validate });
      const campsReplay = new Replay();
      const camps = await Journal.open<Line>(join(dir, 'campaigns'), { validate: campsReplay.validate });
      const seqsReplay = new Replay();
      const seqs = await Journal.open<Line>(join(dir, 'sequences'), { validate: seqsReplay.validate });
      const store = new FileStore(
        dir,
        doc,
        lock,
        { journal: mail, replay: mailReplay },
        { journal: held, replay: heldReplay },
        { journal: inbox, replay: inboxReplay },
        { journal: subs, replay: subsReplay },
        { journal: camps, replay: campsReplay },
        { journal: seqs, replay: seqsReplay },
        now,
        box,
        opts.inboxSnapshotMin ?? INBOX_SNAPSHOT_MIN,
      );
      // Deleted workspaces' lines leave the journals before anything reads them.
      if (doc.data.pruned.length) {
        store.prunedLines = await (
          await import('./workspace-prune.js')
        ).pruneJournals(doc.data.pruned, [camps, seqs, held, mail, inbox, subs], join(dir, 'inbox'), SNAPSHOT_FILE);
        doc.data.pruned = [];
        await doc.commit();
      }
      // Suppressions first; the inbox's lines change records of the mail journal, so they are read
      // after it, and the mail journal's marks (events dispatched) are applied after both.
      const replayAll = async (journal: Journal<Line>, replay: Replay) => {
        for (const day of await journal.partitions()) await journal.each(day, (record, at) => replay.apply(record, at));
      };
      await replayAll(held, heldReplay);
      heldReplay.finish();
      // Campaigns and sequences before the mail journal: its accept lines move fan-outs and enrolments on.
      await replayAll(camps, campsReplay);
      campsReplay.finish();
      await replayAll(seqs, seqsReplay);
      seqsReplay.finish();
      // The inbox index's snapshot first: its items take their numbers before the Sent copies are added.
      await store.#inbox.load();
      await replayAll(mail, mailReplay);
      await store.#inbox.replayJournal();
      mailReplay.finish();
      inboxReplay.finish();
      await store.#inbox.settle();
      // The daemon reads the subscribers at its start (and reports their unreadable lines then); an
      // admin command reads them only if it uses lists or subscribers.
      if (role === 'serve') await store.#lists.load();
      // Deleted workspaces not purged yet (a daemon stopped in between): their mail stays unsent.
      for (const id of Object.keys(doc.data.deletions)) store.#dropJobs(id);
      // Unreadable lines were skipped; a copy of each goes aside before anything else is written.
      await setAside(dir, 'mail', mail.problems);
      await setAside(dir, 'suppressions', held.problems);
      await setAside(dir, 'inbox', inbox.problems);
      await setAside(dir, 'campaigns', camps.problems);
      await setAside(dir, 'sequences', seqs.problems);
      return store;
    } catch (e) {
      await lock.release();
      throw e;
    }
  }

  get lock(): StoreLock {
    return this.#lock;
  }

  /** Journal lines skipped because they cannot be read (set aside in quarantine/). */
  get problems(): BadLine[] {
    return this.#journals.flatMap((j) => j.problems);
  }

  startupWarning(): string | null {
    const bad = this.problems;
    return bad.length ? describeBadLines(bad) : null;
  }

  startupNote(): string | null {
    return this.prunedLines
      ? `the journals were written again without ${this.prunedLines} line${this.prunedLines === 1 ? '' : 's'} of deleted workspaces`
      : null;
  }

  /** File writes made so far (grouping shows as fewer writes than calls). */
  get fileWrites(): number {
    return this.#doc.writes;
  }

  async health(): Promise<void> {
    this.#doc.open();
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    // Derived data: a store that cannot write it opens by reading the journal, as without one.
    await this.#inbox.save().catch(() => {});
    await this.#doc.close();
    for (const j of this.#journals) await j.close();
    await this.#lock.release();
  }
}

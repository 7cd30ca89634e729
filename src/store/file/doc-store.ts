// File store: only what its data file (svc.json) holds about workspaces, keys, domains and
// addresses, for a command that needs nothing else (`svc keys list`, `svc domains list`, ...). It
// takes the store's lock and reads svc.json, as FileStore.open does (openDataFile, its first
// steps), but opens no journal and replays nothing: such a command then starts without loading the
// journals' code (about 60 modules) or reading them, whatever they hold. What only a whole open
// does (journal lines of deleted workspaces dropped, unreadable lines set aside) waits for the
// next one.
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { SvcError } from '../../errors.js';
import { SecretBox } from '../secret-box.js';
import type { StoreSlice } from '../types.js';
import { fileAddresses } from './addresses.js';
import { DATA_FILE, DocFile } from './doc.js';
import { fileDomains, sealDomainKeys } from './domains.js';
import { fileKeys } from './keys.js';
import { StoreLock, unwritable, type LockRole } from './lock.js';
import { fileWorkspaces } from './workspaces.js';

/** The groups a data-file-only store has. */
export type DocGroups = 'workspaces' | 'keys' | 'domains' | 'addresses';

/** A store of those groups that can be closed (what FileStore, RemoteStore and PgStore are too). */
export type DocSlice = StoreSlice<DocGroups> & { readonly describe: string; close(): Promise<void> };

export interface DataFileOptions {
  /** What is opening it (`svc keys list`), written into the lock. */
  command?: string;
  /** DKIM private keys, the STARTTLS key and the secrets in svc.json are kept sealed with it (secret-box.ts). */
  encryptionKey?: Buffer;
}

/** A store's data file read, its lock held, and the encryption key that opens it (openDataFile). */
export interface DataFile {
  doc: DocFile;
  lock: StoreLock;
  box: SecretBox | null;
}

/**
 * The first steps of every open of a file store (FileStore.open does the rest): the directory,
 * its lock (LockHeldError when another process owns it), the data file read (and written at once
 * when the store is new: that file is how commands tell a store from an empty folder, open.ts),
 * and the encryption key checked against it (plaintext keys sealed). The lock is let go of when a
 * step fails.
 */
export async function openDataFile(dir: string, role: LockRole, opts: DataFileOptions): Promise<DataFile> {
  try {
    await mkdir(dir, { recursive: true, mode: 0o700 });
  } catch (e) {
    throw unwritable(dir, e);
  }
  const lock = await StoreLock.acquire(dir, role, opts.command ?? null);
  try {
    const doc = new DocFile(dir);
    const fresh = !existsSync(join(dir, DATA_FILE));
    await doc.load();
    if (fresh) await doc.commit();
    const box = opts.encryptionKey ? new SecretBox(opts.encryptionKey) : null;
    await sealDomainKeys(doc, box);
    return { doc, lock, box };
  } catch (e) {
    await lock.release();
    throw e;
  }
}

export class DocStore implements DocSlice {
  readonly describe: string;
  readonly workspaces;
  readonly keys;
  readonly domains;
  readonly addresses;
  #closed = false;

  private constructor(
    dir: string,
    readonly doc: DocFile,
    readonly lock: StoreLock,
    box: SecretBox | null,
  ) {
    this.describe = `file:${dir}`;
    // Deleting a workspace ends its mail and endpoints and forgets its journals' records: only a
    // whole store can, and no command that opens this one deletes.
    const whole = () => Promise.reject(new SvcError('internal', 'deleting a workspace needs the whole store (FileStore)'));
    this.workspaces = fileWorkspaces(doc, { end: whole, forget: whole });
    this.keys = fileKeys(doc);
    this.domains = fileDomains(doc, box);
    this.addresses = fileAddresses(doc);
  }

  /**
   * Takes the directory's lock and reads the data file; throws LockHeldError when another process
   * owns it. The encryption key is checked (and plaintext keys sealed) as FileStore.open does, so
   * that a store that needs a key, or another one, is refused here too.
   */
  static async open(dir: string, role: LockRole, opts: DataFileOptions = {}): Promise<DocStore> {
    const { doc, lock, box } = await openDataFile(dir, role, opts);
    return new DocStore(dir, doc, lock, box);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.doc.close();
    await this.lock.release();
  }
}

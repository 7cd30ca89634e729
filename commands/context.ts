// commands/: the command line, one file per command (registry.ts lists them), printing through
// output.ts.
//
// What a command runs with: its config (read once, on first use), the service on the selected
// store (opened on first use, closed when the command ends) and the output. Start-up is most of a
// one-shot command's time, so a command asks for what it uses: parts('messages') loads the message
// log and not the rest of the service (service() is all of it, for the daemon and the few commands
// that use most of it). A command that needs only workspaces, keys, domains and addresses asks for
// docService(): on a file store that no daemon owns, it opens the store's data file alone and
// loads neither the journals nor the rest of the service.
import { loadConfig, loadSettings, unknownEnv, type Config, type ConfigFlags, type LoadedSettings } from '../src/config.js';
import { systemClock, systemRandom } from '../src/clock.js';
import { lineLog } from '../src/log.js';
import type { Service } from '../src/service.js';
import type { ServiceDeps } from '../src/service-deps.js';
import type { PartMaker, PartName, Parts } from '../src/service.js';
import type { Workspace } from '../src/model/workspace.js';
import { openDocStore, openStore } from '../src/store/open.js';
import type { Store } from '../src/store/types.js';
import type { DocSlice } from '../src/store/file/doc-store.js';
import { Output, type Io } from './output.js';

/** The parts of the service that need only what a data-file-only store holds, each loaded when asked for. */
const DOC_PARTS = {
  keys: async () => (await import('../src/auth/keys.js')).keyService,
  domains: async () => (await import('../src/domains/domains.js')).domainService,
  addresses: async () => (await import('../src/addresses/addresses.js')).addressService,
};
type DocParts = { [K in keyof typeof DOC_PARTS]: ReturnType<Awaited<ReturnType<(typeof DOC_PARTS)[K]>>> };

/** What docService() gives: the parts asked for, on the store's workspaces, keys, domains and addresses. */
export type DocService<K extends keyof DocParts> = Pick<DocParts, K> & { store: DocSlice };

export class Context {
  #config: Config | undefined;
  #settings: LoadedSettings | undefined;
  /** The whole store, opened once; the service, or some of its parts, are built on it. */
  #store: Promise<Store> | undefined;
  #deps: Promise<ServiceDeps> | undefined;
  #service: Promise<Service> | undefined;
  #parts: Promise<PartMaker> | undefined;
  #doc: Promise<DocSlice> | undefined;
  /** Whether #doc is a store docService() opened itself (not the whole store), to be closed by it. */
  #docOwn = false;
  readonly out: Output;

  constructor(
    readonly io: Io,
    readonly flags: ConfigFlags & { json?: boolean; debug?: boolean; migrate?: boolean },
    /** The command makes a file store that does not exist yet (CommandSpec.createsStore). */
    readonly createsStore = false,
    /** `svc keys list`: named in a file store's lock, for a command that waits for it. */
    readonly command = 'svc',
  ) {
    this.out = new Output(io, Boolean(flags.json));
  }

  get log() {
    return lineLog((l) => this.io.stderr.write(l));
  }

  /** Every setting with where it came from, and the config file read (once). */
  settings(): LoadedSettings {
    if (!this.#settings) {
      this.#settings = loadSettings(this.flags, this.io.env, this.io.cwd, this.io.systemConfig);
      // Said once: a misspelt variable would otherwise be ignored in silence.
      for (const name of unknownEnv(this.io.env))
        this.log.warn(`${name} is not a setting of svc and is ignored (svc config show lists them)`);
    }
    return this.#settings;
  }

  /** The settings and config read again from the same flags, environment and file (SIGHUP). */
  rereadConfig(): { config: Config; settings: LoadedSettings } {
    const settings = loadSettings(this.flags, this.io.env, this.io.cwd, this.io.systemConfig);
    return { config: loadConfig(this.flags, this.io.env, this.io.cwd, settings), settings };
  }

  config(): Config {
    this.#config ??= loadConfig(this.flags, this.io.env, this.io.cwd, this.settings());
    return this.#config;
  }

  /** The selected store, whole (opened on first use); `check: false` skips the schema check (`svc migrate`). */
  #wholeStore(opts: { check?: boolean; create?: boolean } = {}): Promise<Store> {
    this.#store ??= (async () => {
      // One store open at a time (a second open of a file store would wait for this process's own lock).
      await this.#closeDoc();
      return openStore(this.config().store, {
        role: 'admin',
        log: this.log,
        check: opts.check ?? true,
        create: opts.create ?? this.createsStore,
        command: this.command,
      });
    })();
    return this.#store;
  }

  /** What the service's parts are built on (once per store opened). */
  #serviceDeps(opts?: { check?: boolean; create?: boolean }): Promise<ServiceDeps> {
    this.#deps ??= Promise.all([this.#wholeStore(opts), import('../src/service-deps.js')]).then(([store, { serviceDeps }]) =>
      serviceDeps({ store, config: this.config(), clock: systemClock, random: systemRandom, log: this.log }),
    );
    return this.#deps;
  }

  /** The whole service on the selected store; `check: false` skips the schema check (`svc migrate`). */
  service(opts: { check?: boolean; create?: boolean } = {}): Promise<Service> {
    this.#service ??= Promise.all([this.#serviceDeps(opts), import('../src/service.js')]).then(([deps, m]) => m.createService(deps));
    return this.#service;
  }

  /**
   * The parts of the service a command uses (`ctx.parts('messages')`), each loaded when asked for,
   * on the whole store: the same parts as service() has, without loading the rest.
   */
  async parts<K extends PartName>(...names: K[]): Promise<Parts<K>> {
    if (this.#service) return this.#service;
    // The store opens while the parts' modules load. Its failure is the parts' (they await it); until
    // they do, it is not an unhandled rejection.
    const deps = this.#serviceDeps();
    deps.catch(() => undefined);
    this.#parts ??= import('../src/service.js').then((m) => new m.PartMaker(deps));
    return (await this.#parts).parts(names);
  }

  /**
   * Parts of the service that need only workspaces, keys, domains and addresses (`svc keys list`,
   * `svc domains list`, ...): on the whole store when it is open already, otherwise on
   * openDocStore's (a file store's data file without its journals).
   */
  async docService<K extends keyof DocParts>(...parts: K[]): Promise<DocService<K>> {
    if (!this.#doc) {
      this.#docOwn = !this.#store;
      this.#doc = this.#store
        ? this.#store.then((s): DocSlice => s)
        : openDocStore(this.config().store, { role: 'admin', log: this.log, create: this.createsStore, command: this.command });
    }
    const [store, ...made] = await Promise.all([this.#doc, ...parts.map((p) => DOC_PARTS[p]())]);
    const deps = { store, clock: systemClock, random: systemRandom, config: this.config(), log: this.log };
    // Each factory takes these deps (its store groups are among the data file's).
    const built = Object.fromEntries(parts.map((p, i) => [p, (made[i] as (d: typeof deps) => unknown)(deps)]));
    return { store, ...built } as DocService<K>;
  }

  /** Closes what docService() opened itself (the whole store is closed by close() and release()). */
  async #closeDoc(): Promise<void> {
    const doc = this.#doc;
    this.#doc = undefined;
    if (!doc || !this.#docOwn) return;
    await (await doc.catch(() => null))?.close();
  }

  /** Forgets the whole store and what was built on it, and closes the store. */
  async #dropStore(): Promise<void> {
    const held = this.#store;
    this.#store = this.#deps = this.#service = this.#parts = undefined;
    if (this.#doc && !this.#docOwn) this.#doc = undefined;
    await (await held?.catch(() => null))?.close().catch(() => undefined);
  }

  /**
   * The service again after its daemon went away (a follower: `webhooks tail`, `inbox watch`):
   * through the daemon's admin socket only, never by opening a file store itself (the daemon could
   * not start again while a follower held it). store_unavailable while the daemon is not back.
   */
  async reconnect(): Promise<Service> {
    await this.#dropStore();
    const config = this.config();
    const store = await openStore(config.store, { role: 'admin', log: this.log, viaDaemon: true });
    this.#store = Promise.resolve(store);
    return this.service();
  }

  /**
   * Between the rounds of a long-running command (`domains verify --wait` and `--watch`, `webhooks
   * tail`, `inbox watch`, `broadcasts watch` with no daemon): lets go of a file store it holds, so
   * that other commands (and a daemon) can open it meanwhile; the next service() opens it again.
   * Through a daemon or on Postgres nothing is held, and nothing changes.
   */
  async release(): Promise<void> {
    if (await this.holdsStore()) await this.#dropStore();
  }

  /** Whether this command holds a file store itself (opened it directly, not through a daemon). */
  async holdsStore(): Promise<boolean> {
    if (!this.#store || this.config().store.kind !== 'file') return false;
    const s = await this.#store.catch(() => null);
    return Boolean(s && s.describe.startsWith('file:'));
  }

  /** The workspace of a workspace-scoped command (--workspace, or the only one). */
  async workspace(): Promise<Workspace> {
    const { selectWorkspace } = await import('../src/workspaces/select.js');
    const store = this.#store ?? this.#doc ?? this.#wholeStore();
    return selectWorkspace((await store).workspaces, this.config().workspace);
  }

  async close(): Promise<void> {
    await this.#closeDoc();
    await this.#dropStore();
  }
}

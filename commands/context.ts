// commands/: the command line, one file per command (registry.ts lists them), printing through
// output.ts.
//
// What a command runs with: its config (read once, on first use), the service on the selected
// store (opened on first use, closed when the command ends) and the output.
import { loadConfig, loadSettings, unknownEnv, type Config, type ConfigFlags, type LoadedSettings } from '../src/config.js';
import { systemClock, systemRandom } from '../src/clock.js';
import { lineLog } from '../src/log.js';
import { createService, type Service } from '../src/service.js';
import type { Workspace } from '../src/model/workspace.js';
import { openStore } from '../src/store/open.js';
import { Output, type Io } from './output.js';

export class Context {
  #config: Config | undefined;
  #settings: LoadedSettings | undefined;
  #service: Promise<Service> | undefined;
  readonly out: Output;

  constructor(
    readonly io: Io,
    readonly flags: ConfigFlags & { json?: boolean; debug?: boolean; migrate?: boolean },
    /** The command makes a file store that does not exist yet (CommandSpec.createsStore). */
    readonly createsStore = false,
  ) {
    this.out = new Output(io, Boolean(flags.json));
  }

  get log() {
    return lineLog((l) => this.io.stderr.write(l));
  }

  /** Every setting with where it came from, and the config file read (once). */
  settings(): LoadedSettings {
    if (!this.#settings) {
      this.#settings = loadSettings(this.flags, this.io.env, this.io.cwd);
      // Said once: a misspelt variable would otherwise be ignored in silence.
      for (const name of unknownEnv(this.io.env))
        this.log.warn(`${name} is not a setting of svc and is ignored (svc config show lists them)`);
    }
    return this.#settings;
  }

  /** The settings and config read again from the same flags, environment and file (SIGHUP). */
  rereadConfig(): { config: Config; settings: LoadedSettings } {
    const settings = loadSettings(this.flags, this.io.env, this.io.cwd);
    return { config: loadConfig(this.flags, this.io.env, this.io.cwd, settings), settings };
  }

  config(): Config {
    this.#config ??= loadConfig(this.flags, this.io.env, this.io.cwd, this.settings());
    return this.#config;
  }

  /** The service on the selected store; `check: false` skips the schema check (`svc migrate`). */
  service(opts: { check?: boolean; create?: boolean } = {}): Promise<Service> {
    this.#service ??= (async () => {
      const config = this.config();
      const store = await openStore(config.store, {
        role: 'admin',
        log: this.log,
        check: opts.check ?? true,
        create: opts.create ?? this.createsStore,
      });
      return createService({ store, config, clock: systemClock, random: systemRandom, log: this.log });
    })();
    return this.#service;
  }

  /** The workspace of a workspace-scoped command (--workspace, or the only one). */
  async workspace(): Promise<Workspace> {
    return (await this.service()).workspaces.select(this.config().workspace);
  }

  async close(): Promise<void> {
    if (this.#service) await (await this.#service.catch(() => null))?.store.close();
  }
}

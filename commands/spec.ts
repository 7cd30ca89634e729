// The shape of one command (DESIGN.md "One command, one file"): its usage, and a thin run that
// calls the service and prints through the injected output.
import type { Context } from './context.js';
import type { IdArgs } from './ids.js';

export interface OptionSpec {
  flags: string;
  description: string;
  default?: string | boolean;
}

export interface CommandSpec {
  /** Plural noun (`workspaces`); absent for top-level commands such as `serve`. */
  noun?: string;
  verb: string;
  summary: string;
  /** commander argument syntax, e.g. ['<name>', '[plan]']. */
  args?: string[];
  options?: OptionSpec[];
  /** Which arguments and options are ids (a unique prefix is taken for each: ids.ts). */
  ids?: IdArgs;
  /** Makes a file store that does not exist yet; every other command refuses a missing one (exit 1). */
  createsStore?: true;
  /** Resolves with the exit code (0 when nothing is returned). */
  run(ctx: Context, args: string[], opts: Record<string, unknown>): Promise<number | void>;
}

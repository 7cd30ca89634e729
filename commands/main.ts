// argv → command → exit code (CONTRACT.md: 0 success, 1 failure, 2 wrong usage, 3 checked, not yet).
import { readFileSync } from 'node:fs';
import { Command, CommanderError } from 'commander';
import { isSvcError } from '../src/errors.js';
import type { Context } from './context.js';
import { manifest, type CommandEntry, type Manifest } from './manifest.js';
import type { Io, Start } from './output.js';
import { SYSTEM_CONFIG_FILE } from '../src/config-file.js';
import type { CommandSpec } from './spec.js';
import { inertJson, printable } from './terminal.js';

/** package.json sits one level up from commands/ in the source tree, two from dist/commands/. */
function version(): string {
  for (const rel of ['../../package.json', '../package.json']) {
    try {
      return (JSON.parse(readFileSync(new URL(rel, import.meta.url), 'utf8')) as { version: string }).version;
    } catch {
      /* try the next */
    }
  }
  return 'unknown';
}

/**
 * The noun a command line names (`keys` in `svc --store x keys list`), or null: its first word that
 * is not an option or an option's value, when that word is a noun or a noun's singular.
 */
export function nounOf(argv: string[], { nouns, global }: Manifest): string | null {
  const takesValue = new Set(
    global.filter((o) => /[<[]/.test(o.flags)).flatMap((o) => o.flags.split(/[ ,]+/).filter((f) => f.startsWith('-'))),
  );
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i]!;
    if (word === '--') return null;
    if (word.startsWith('-')) {
      if (!word.includes('=') && takesValue.has(word)) i++;
      continue;
    }
    return Object.entries(nouns).find(([name, n]) => word === name || word === n.singular)?.[0] ?? null;
  }
  return null;
}

/**
 * The command tree from the manifest: nothing of a command is loaded until it runs, when its file
 * and the context (config, store, service) are imported. With `only` (the noun the command line
 * names), the other nouns are there without their verbs: the tree a command runs in is built in
 * about 1 ms instead of 5.
 */
export function buildProgram(
  io: Io,
  { nouns, global, commands }: Manifest,
  run: (ctx: Context, spec: CommandSpec, args: string[], opts: Record<string, unknown>) => Promise<void>,
  only: string | null = null,
): Command {
  // One prefix for every error, commander's own too: `svc: unknown option '--bogus'`.
  const output = {
    writeOut: (s: string) => void io.stdout.write(s),
    writeErr: (s: string) => void io.stderr.write(s),
    outputError: (s: string, write: (s: string) => void) => write(s.replace(/^error: /, 'svc: ')),
  };
  const program = new Command('svc')
    .description('svc: self-hosted transactional email (REST API, SMTP relay, inbound MX, webhooks)')
    .version(version(), '-V, --version')
    .option('--json', 'print exactly one JSON document on stdout')
    .option('--debug', 'print stack traces on failure')
    .exitOverride()
    .configureOutput(output)
    // Every command's help lists the global options it takes too (--store, --workspace, --json, --config, ...).
    .configureHelp({ showGlobalOptions: true })
    .showSuggestionAfterError(true);
  // Every command's settings (settings.ts); `svc serve`'s own are its options.
  for (const o of global) program.option(o.flags, o.description);

  const groups = new Map<string, Command>();
  for (const spec of commands) {
    let parent = program;
    if (spec.noun) {
      let group = groups.get(spec.noun);
      if (!group) {
        const noun = nouns[spec.noun];
        if (!noun) throw new Error(`noun ${spec.noun} is not in commands/registry.ts`);
        group = program.command(spec.noun).alias(noun.singular).description(noun.summary);
        group.exitOverride().configureOutput(output);
        groups.set(spec.noun, group);
      }
      if (only !== null && spec.noun !== only) continue;
      parent = group;
    }
    const cmd = parent.command(spec.verb).description(spec.summary);
    if (spec.examples.length) cmd.addHelpText('after', `\nExamples:\n${spec.examples.map((e) => `  ${e}`).join('\n')}\n`);
    for (const a of spec.args ?? []) cmd.argument(a);
    for (const o of spec.options ?? []) cmd.option(o.flags, o.description, o.default as string | boolean | undefined);
    cmd.exitOverride().configureOutput(output);
    cmd.action(async (...received: unknown[]) => {
      const self = received[received.length - 1] as Command;
      const args = received.slice(0, spec.args?.length ?? 0) as string[];
      const opts = self.optsWithGlobals();
      const [{ Context }, command] = await Promise.all([import('./context.js'), load(spec)]);
      const ctx = new Context(io, opts, spec.createsStore === true, ['svc', spec.noun, spec.verb].filter(Boolean).join(' '));
      try {
        if (spec.ids) await (await import('./ids.js')).resolveIds(ctx, spec.ids, args, opts);
        await run(ctx, command, args, opts);
      } finally {
        await ctx.close();
      }
    });
  }
  return program;
}

const load = async (entry: CommandEntry): Promise<CommandSpec> => (await import('./registry.js')).loadCommand(entry.file);

export async function main(
  argv: string[],
  io: Io = {
    stdout: process.stdout,
    stderr: process.stderr,
    stdin: process.stdin,
    env: process.env,
    cwd: process.cwd(),
    systemConfig: SYSTEM_CONFIG_FILE,
  },
  start?: Start,
): Promise<number> {
  if (start) io = { ...io, start };
  let code = 0;
  let debug = argv.includes('--debug');
  let json = argv.includes('--json');
  // `svc help keys create` is `svc keys create --help` (commander's own help command takes one word).
  if (argv[0] === 'help' && argv.length > 1) argv = [...argv.slice(1).filter((a) => a !== '--help'), '--help'];
  const commands = await manifest();
  const program = buildProgram(
    io,
    commands,
    async (ctx, spec, args, opts) => {
      debug = Boolean(opts.debug);
      json = Boolean(opts.json);
      code = (await spec.run(ctx, args, opts)) ?? 0;
    },
    nounOf(argv, commands),
  );
  try {
    await program.parseAsync(argv, { from: 'user' });
  } catch (e) {
    if (e instanceof CommanderError) {
      // commander has printed its one-line message already. Help asked for is success; help shown
      // because a noun came without its verb (`svc store`) is wrong usage.
      return ['commander.helpDisplayed', 'commander.version', 'commander.help', 'commander.executeSubCommandAsync'].includes(e.code) &&
        e.exitCode === 0
        ? 0
        : 2;
    }
    // The services word a bad query parameter for the REST API; here it came in as a flag.
    const message = (e instanceof Error ? e.message : String(e)).replace(
      /^invalid query: (\w+)/,
      (_, name: string) => `--${name.replace(/_/g, '-')}`,
    );
    // With --json a refusal that has a body (a quota) prints it as the one document.
    if (json && isSvcError(e) && e.details) io.stdout.write(inertJson({ error: e.message, ...e.details }) + '\n');
    // An error can quote what a remote server or a message said.
    io.stderr.write(`svc: ${printable(message.split('\n')[0]!)}\n`);
    if (debug && e instanceof Error && e.stack) io.stderr.write(e.stack + '\n');
    return isSvcError(e) ? e.spec.exit : 1;
  }
  return code;
}

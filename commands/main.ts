// argv → command → exit code (CONTRACT.md: 0 success, 1 failure, 2 wrong usage, 3 checked, not yet).
import { readFileSync } from 'node:fs';
import { Command, CommanderError } from 'commander';
import { isSvcError } from '../src/errors.js';
import { helpOf, SETTINGS } from '../src/settings.js';
import { Context } from './context.js';
import { commands, nouns } from './registry.js';
import type { Io } from './output.js';
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

export function buildProgram(
  io: Io,
  run: (ctx: Context, spec: (typeof commands)[number], args: string[], opts: Record<string, unknown>) => Promise<void>,
): Command {
  const program = new Command('svc')
    .description('svc: self-hosted transactional email (REST API, SMTP relay, inbound MX, webhooks)')
    .version(version(), '-V, --version')
    .option('--json', 'print exactly one JSON document on stdout')
    .option('--debug', 'print stack traces on failure')
    .exitOverride()
    .configureOutput({ writeOut: (s) => io.stdout.write(s), writeErr: (s) => io.stderr.write(s) })
    .showSuggestionAfterError(true);
  // Every command's settings (settings.ts); `svc serve`'s own are its options.
  for (const s of SETTINGS) if (s.scope === 'global' && s.flag) program.option(s.flag, helpOf(s));

  const groups = new Map<string, Command>();
  for (const spec of commands) {
    let parent = program;
    if (spec.noun) {
      let group = groups.get(spec.noun);
      if (!group) {
        const noun = nouns[spec.noun];
        if (!noun) throw new Error(`noun ${spec.noun} is not in commands/registry.ts`);
        group = program.command(spec.noun).alias(noun.singular).description(noun.summary);
        group.exitOverride().configureOutput({ writeOut: (s) => io.stdout.write(s), writeErr: (s) => io.stderr.write(s) });
        groups.set(spec.noun, group);
      }
      parent = group;
    }
    const cmd = parent.command(spec.verb).description(spec.summary);
    for (const a of spec.args ?? []) cmd.argument(a);
    for (const o of spec.options ?? []) cmd.option(o.flags, o.description, o.default as string | boolean | undefined);
    cmd.exitOverride().configureOutput({ writeOut: (s) => io.stdout.write(s), writeErr: (s) => io.stderr.write(s) });
    cmd.action(async (...received: unknown[]) => {
      const self = received[received.length - 1] as Command;
      const args = received.slice(0, spec.args?.length ?? 0) as string[];
      const opts = self.optsWithGlobals();
      const ctx = new Context(io, opts, spec.createsStore === true);
      try {
        await run(ctx, spec, args, opts);
      } finally {
        await ctx.close();
      }
    });
  }
  return program;
}

export async function main(
  argv: string[],
  io: Io = { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin, env: process.env, cwd: process.cwd() },
): Promise<number> {
  let code = 0;
  let debug = argv.includes('--debug');
  let json = argv.includes('--json');
  const program = buildProgram(io, async (ctx, spec, args, opts) => {
    debug = Boolean(opts.debug);
    json = Boolean(opts.json);
    code = (await spec.run(ctx, args, opts)) ?? 0;
  });
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
    const message = e instanceof Error ? e.message : String(e);
    // With --json a refusal that has a body (a quota) prints it as the one document.
    if (json && isSvcError(e) && e.details) io.stdout.write(inertJson({ error: e.message, ...e.details }) + '\n');
    // An error can quote what a remote server or a message said.
    io.stderr.write(`svc: ${printable(message.split('\n')[0]!)}\n`);
    if (debug && e instanceof Error && e.stack) io.stderr.write(e.stack + '\n');
    return isSvcError(e) ? e.spec.exit : 1;
  }
  return code;
}

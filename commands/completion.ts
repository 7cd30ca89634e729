// svc completion bash|zsh|fish: a completion script on stdout, made from the command registry (so
// it knows every noun, verb and option of this build). bash: `source <(svc completion bash)`;
// zsh runs the bash one through bashcompinit; fish has its own.
import { SvcError } from '../src/errors.js';
import { manifest } from './manifest.js';
import type { CommandSpec } from './spec.js';

const SHELLS = ['bash', 'zsh', 'fish'] as const;

interface Tree {
  /** Top-level words: nouns, their singular aliases and verbs without a noun. */
  top: string[];
  /** noun (and alias) → its verbs. */
  verbs: Map<string, string[]>;
  /** "noun verb" or "verb" → its options. */
  options: Map<string, string[]>;
  global: string[];
}

async function tree(): Promise<Tree> {
  const { commands, nouns, global: settings } = await manifest();
  const global = ['--json', '--debug', '--help', ...settings.map((o) => /--[a-z0-9-]+/.exec(o.flags)![0])];
  const verbs = new Map<string, string[]>();
  const options = new Map<string, string[]>();
  const top = new Set<string>();
  for (const c of commands) {
    const own = (c.options ?? []).map((o) => /--[a-z0-9-]+/.exec(o.flags)![0]);
    if (c.noun) {
      for (const n of [c.noun, nouns[c.noun]!.singular]) {
        top.add(n);
        verbs.set(n, [...(verbs.get(n) ?? []), c.verb]);
        options.set(`${n} ${c.verb}`, own);
      }
    } else {
      top.add(c.verb);
      options.set(c.verb, own);
    }
  }
  top.add('help');
  return { top: [...top].sort(), verbs, options, global };
}

function bash(t: Tree): string {
  const nounCases = [...t.verbs]
    .map(([n, vs]) => `    ${n}) [ "$COMP_CWORD" -eq 2 ] && { COMPREPLY=($(compgen -W "${vs.join(' ')}" -- "$cur")); return; } ;;`)
    .join('\n');
  const optionCases = [...t.options].map(([k, os]) => `    "${k}") opts="${os.join(' ')}" ;;`).join('\n');
  return `# svc completion for bash (svc completion bash). Load it now with
#   source <(svc completion bash)
# or for every shell: svc completion bash > /etc/bash_completion.d/svc
_svc() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" noun="\${COMP_WORDS[1]}" verb="\${COMP_WORDS[2]}" opts=""
  if [ "$COMP_CWORD" -eq 1 ]; then
    COMPREPLY=($(compgen -W "${t.top.join(' ')}" -- "$cur"))
    return
  fi
  case "$noun" in
${nounCases}
  esac
  # A domain's name where a command takes one: read from the store (svc itself, with the same
  # --store, --workspace and --config as the line being typed), quietly, on this TAB only.
  if [ "$COMP_CWORD" -eq 3 ] && [[ "$cur" != -* ]]; then
    case "$noun $verb" in
      "domains show"|"domains verify"|"domains records"|"domains remove"|"domain show"|"domain verify"|"domain records"|"domain remove")
        local i globals=()
        for ((i = 1; i < \${#COMP_WORDS[@]} - 1; i++)); do
          case "\${COMP_WORDS[i]}" in --store|--workspace|--config) globals+=("\${COMP_WORDS[i]}" "\${COMP_WORDS[i+1]}") ;; esac
        done
        COMPREPLY=($(compgen -W "$(\${COMP_WORDS[0]} "\${globals[@]}" domains list 2>/dev/null | awk 'NR > 1 { print $1 }')" -- "$cur"))
        return ;;
    esac
  fi
  if [[ "$cur" == -* ]]; then
    case "$noun $verb" in
${optionCases}
    esac
    case "$noun" in
${[...t.options]
  .filter(([k]) => !k.includes(' '))
  .map(([k, os]) => `      ${k}) opts="${os.join(' ')}" ;;`)
  .join('\n')}
    esac
    COMPREPLY=($(compgen -W "$opts ${t.global.join(' ')}" -- "$cur"))
    return
  fi
  COMPREPLY=()
}
complete -o default -F _svc svc
`;
}

function zsh(t: Tree): string {
  return `# svc completion for zsh (svc completion zsh): the bash completion through bashcompinit.
#   source <(svc completion zsh)
autoload -U +X bashcompinit && bashcompinit
${bash(t)
  .split('\n')
  .filter((l) => !l.startsWith('#'))
  .join('\n')}`;
}

function fish(t: Tree): string {
  const lines = ['# svc completion for fish (svc completion fish > ~/.config/fish/completions/svc.fish)', 'complete -c svc -f'];
  lines.push(`complete -c svc -n __fish_use_subcommand -a '${t.top.join(' ')}'`);
  for (const [n, vs] of t.verbs)
    lines.push(
      `complete -c svc -n '__fish_seen_subcommand_from ${n}; and not __fish_seen_subcommand_from ${vs.join(' ')}' -a '${vs.join(' ')}'`,
    );
  for (const [k, os] of t.options) {
    const last = k.split(' ').at(-1)!;
    const cond = k.includes(' ')
      ? `__fish_seen_subcommand_from ${k.split(' ')[0]}; and __fish_seen_subcommand_from ${last}`
      : `__fish_seen_subcommand_from ${last}`;
    for (const o of os) lines.push(`complete -c svc -n '${cond}' -l ${o.slice(2)}`);
  }
  for (const o of t.global) lines.push(`complete -c svc -l ${o.slice(2)}`);
  return lines.join('\n') + '\n';
}

export default {
  verb: 'completion',
  summary: 'a shell completion script on stdout: svc completion bash|zsh|fish',
  args: ['<shell>'],
  async run(ctx, [shell]) {
    if (!(SHELLS as readonly string[]).includes(shell!)) throw new SvcError('usage', `invalid shell '${shell}': use ${SHELLS.join(', ')}`);
    const t = await tree();
    ctx.io.stdout.write(shell === 'bash' ? bash(t) : shell === 'zsh' ? zsh(t) : fish(t));
  },
} satisfies CommandSpec;

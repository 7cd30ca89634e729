// Every command of the binary, by file: a new command is a new file under commands/ and a line in
// COMMANDS. The binary does not import them all to start: the build writes their usage into
// a manifest (manifest.ts), and a command's file is loaded only when it runs.
import type { CommandSpec } from './spec.js';

/** Each noun's help line and its singular alias (`svc key create` = `svc keys create`). */
export const nouns: Record<string, { summary: string; singular: string }> = {
  workspaces: { summary: 'workspaces (tenants) and their plans', singular: 'workspace' },
  keys: { summary: "the workspace's API keys", singular: 'key' },
  domains: { summary: 'sending domains and their DNS verification', singular: 'domain' },
  addresses: { summary: 'registered From addresses', singular: 'address' },
  messages: { summary: 'the message log', singular: 'message' },
  // Already singular: the other form is the alias.
  queue: { summary: 'the outbound queue: queued and deferred mail, retry, cancel', singular: 'queues' },
  suppressions: { summary: 'the workspace suppression list', singular: 'suppression' },
  webhooks: { summary: 'webhook endpoints, the delivery log, replays', singular: 'webhook' },
  inbox: { summary: 'the team inbox: received mail, Sent copies, a live view', singular: 'inboxes' },
  lists: { summary: 'newsletter lists', singular: 'list' },
  subscribers: { summary: "a newsletter list's subscribers", singular: 'subscriber' },
  broadcasts: { summary: 'broadcasts to a list and their campaigns', singular: 'broadcast' },
  sequences: { summary: "timed sequences for a list's new subscribers", singular: 'sequence' },
  steps: { summary: "a sequence's steps", singular: 'step' },
  users: { summary: "the workspace's people, their roles and sign-in links", singular: 'user' },
  // The issue and the operator say `svc store check`; the plural is the alias here.
  config: { summary: 'the effective settings', singular: 'configuration' },
  store: { summary: "the store's own files: check them, repair what cannot be read", singular: 'stores' },
};

/** Each command's file under commands/ (without .js), in the order help lists them, and its import:
 * written out (not `import(`./${file}.js`)`) so that the build's bundle (scripts/bundle-cli.mjs) holds
 * exactly these files. */
const COMMANDS = {
  serve: () => import('./serve.js'),
  init: () => import('./init.js'),
  version: () => import('./version.js'),
  backup: () => import('./backup.js'),
  restore: () => import('./restore.js'),
  doctor: () => import('./doctor.js'),
  'status/index': () => import('./status/index.js'),
  completion: () => import('./completion.js'),
  migrate: () => import('./migrate.js'),
  'workspaces/create': () => import('./workspaces/create.js'),
  'workspaces/list': () => import('./workspaces/list.js'),
  'workspaces/set-plan': () => import('./workspaces/set-plan.js'),
  'workspaces/usage': () => import('./workspaces/usage.js'),
  'workspaces/show': () => import('./workspaces/show.js'),
  'workspaces/delete': () => import('./workspaces/delete.js'),
  'keys/create': () => import('./keys/create.js'),
  'keys/list': () => import('./keys/list.js'),
  'keys/revoke': () => import('./keys/revoke.js'),
  'domains/add': () => import('./domains/add.js'),
  'domains/list': () => import('./domains/list.js'),
  'domains/show': () => import('./domains/show.js'),
  'domains/records': () => import('./domains/records.js'),
  'domains/verify': () => import('./domains/verify.js'),
  'domains/remove': () => import('./domains/remove.js'),
  'addresses/add': () => import('./addresses/add.js'),
  'addresses/list': () => import('./addresses/list.js'),
  'addresses/disable': () => import('./addresses/disable.js'),
  'addresses/enable': () => import('./addresses/enable.js'),
  'addresses/remove': () => import('./addresses/remove.js'),
  'messages/list': () => import('./messages/list.js'),
  'messages/show': () => import('./messages/show.js'),
  'messages/events': () => import('./messages/events.js'),
  'messages/explain': () => import('./messages/explain.js'),
  'queue/list': () => import('./queue/list.js'),
  'queue/show': () => import('./queue/show.js'),
  'queue/retry': () => import('./queue/retry.js'),
  'queue/cancel': () => import('./queue/cancel.js'),
  'inbox/list': () => import('./inbox/list.js'),
  'inbox/threads': () => import('./inbox/threads.js'),
  'inbox/mark': () => import('./inbox/mark.js'),
  'inbox/delete': () => import('./inbox/delete.js'),
  'inbox/show': () => import('./inbox/show.js'),
  'inbox/watch': () => import('./inbox/watch.js'),
  'lists/create': () => import('./lists/create.js'),
  'lists/list': () => import('./lists/list.js'),
  'lists/show': () => import('./lists/show.js'),
  'lists/remove': () => import('./lists/remove.js'),
  'subscribers/add': () => import('./subscribers/add.js'),
  'subscribers/list': () => import('./subscribers/list.js'),
  'subscribers/remove': () => import('./subscribers/remove.js'),
  'subscribers/unsubscribe': () => import('./subscribers/unsubscribe.js'),
  'subscribers/import': () => import('./subscribers/import.js'),
  'broadcasts/send': () => import('./broadcasts/send.js'),
  'broadcasts/list': () => import('./broadcasts/list.js'),
  'broadcasts/show': () => import('./broadcasts/show.js'),
  'broadcasts/cancel': () => import('./broadcasts/cancel.js'),
  'broadcasts/watch': () => import('./broadcasts/watch.js'),
  'sequences/create': () => import('./sequences/create.js'),
  'sequences/list': () => import('./sequences/list.js'),
  'sequences/remove': () => import('./sequences/remove.js'),
  'steps/add': () => import('./steps/add.js'),
  'steps/list': () => import('./steps/list.js'),
  'steps/remove': () => import('./steps/remove.js'),
  'users/create': () => import('./users/create.js'),
  'users/list': () => import('./users/list.js'),
  'users/set-role': () => import('./users/set-role.js'),
  'users/reset': () => import('./users/reset.js'),
  'users/remove': () => import('./users/remove.js'),
  'suppressions/list': () => import('./suppressions/list.js'),
  'suppressions/add': () => import('./suppressions/add.js'),
  'suppressions/remove': () => import('./suppressions/remove.js'),
  'webhooks/add': () => import('./webhooks/add.js'),
  'webhooks/list': () => import('./webhooks/list.js'),
  'webhooks/remove': () => import('./webhooks/remove.js'),
  'webhooks/disable': () => import('./webhooks/disable.js'),
  'webhooks/enable': () => import('./webhooks/enable.js'),
  'webhooks/rotate-secret': () => import('./webhooks/rotate-secret.js'),
  'webhooks/deliveries': () => import('./webhooks/deliveries.js'),
  'webhooks/replay': () => import('./webhooks/replay.js'),
  'webhooks/test': () => import('./webhooks/test.js'),
  'webhooks/tail': () => import('./webhooks/tail.js'),
  'store/check': () => import('./store/check.js'),
  'store/rekey': () => import('./store/rekey.js'),
  'config/show': () => import('./config/show.js'),
} satisfies Record<string, () => Promise<{ default: CommandSpec }>>;

export type CommandFile = keyof typeof COMMANDS;
export const COMMAND_FILES = Object.keys(COMMANDS) as CommandFile[];

/** One command's spec, from its file. */
export async function loadCommand(file: string): Promise<CommandSpec> {
  const load = (COMMANDS as Record<string, (() => Promise<{ default: CommandSpec }>) | undefined>)[file];
  if (!load) throw new Error(`no command file ${file} (commands/registry.ts)`);
  return (await load()).default;
}

/** Every command's spec (the build's manifest, the docs tests, and a binary without its manifest). */
export const loadCommands = (): Promise<CommandSpec[]> => Promise.all(COMMAND_FILES.map(loadCommand));

// Every command of the binary. A new command is a new file here and a line below.
import type { CommandSpec } from './spec.js';
import serve from './serve.js';
import migrate from './migrate.js';
import init from './init.js';
import version from './version.js';
import backup from './backup.js';
import doctor from './doctor.js';
import status from './status/index.js';
import completion from './completion.js';
import restore from './restore.js';
import queueList from './queue/list.js';
import queueShow from './queue/show.js';
import queueRetry from './queue/retry.js';
import queueCancel from './queue/cancel.js';
import workspacesCreate from './workspaces/create.js';
import workspacesList from './workspaces/list.js';
import workspacesSetPlan from './workspaces/set-plan.js';
import workspacesUsage from './workspaces/usage.js';
import workspacesShow from './workspaces/show.js';
import workspacesDelete from './workspaces/delete.js';
import keysCreate from './keys/create.js';
import keysList from './keys/list.js';
import keysRevoke from './keys/revoke.js';
import domainsAdd from './domains/add.js';
import domainsList from './domains/list.js';
import domainsShow from './domains/show.js';
import domainsRecords from './domains/records.js';
import domainsVerify from './domains/verify.js';
import domainsRemove from './domains/remove.js';
import addressesAdd from './addresses/add.js';
import addressesList from './addresses/list.js';
import addressesDisable from './addresses/disable.js';
import addressesEnable from './addresses/enable.js';
import addressesRemove from './addresses/remove.js';
import messagesList from './messages/list.js';
import messagesShow from './messages/show.js';
import messagesEvents from './messages/events.js';
import messagesExplain from './messages/explain.js';
import suppressionsList from './suppressions/list.js';
import suppressionsAdd from './suppressions/add.js';
import suppressionsRemove from './suppressions/remove.js';
import webhooksAdd from './webhooks/add.js';
import webhooksList from './webhooks/list.js';
import webhooksRemove from './webhooks/remove.js';
import webhooksDisable from './webhooks/disable.js';
import webhooksEnable from './webhooks/enable.js';
import webhooksRotateSecret from './webhooks/rotate-secret.js';
import webhooksDeliveries from './webhooks/deliveries.js';
import webhooksReplay from './webhooks/replay.js';
import webhooksTest from './webhooks/test.js';
import webhooksTail from './webhooks/tail.js';
import storeCheck from './store/check.js';
import storeRepair from './store/repair.js';
import storeRekey from './store/rekey.js';
import configShow from './config/show.js';
import inboxDelete from './inbox/delete.js';
import inboxList from './inbox/list.js';
import inboxThreads from './inbox/threads.js';
import inboxMark from './inbox/mark.js';
import inboxShow from './inbox/show.js';
import inboxWatch from './inbox/watch.js';
import listsCreate from './lists/create.js';
import listsList from './lists/list.js';
import listsShow from './lists/show.js';
import listsRemove from './lists/remove.js';
import subscribersAdd from './subscribers/add.js';
import subscribersList from './subscribers/list.js';
import subscribersRemove from './subscribers/remove.js';
import subscribersUnsubscribe from './subscribers/unsubscribe.js';
import subscribersImport from './subscribers/import.js';
import broadcastsSend from './broadcasts/send.js';
import broadcastsList from './broadcasts/list.js';
import broadcastsShow from './broadcasts/show.js';
import broadcastsCancel from './broadcasts/cancel.js';
import broadcastsWatch from './broadcasts/watch.js';
import sequencesCreate from './sequences/create.js';
import sequencesList from './sequences/list.js';
import sequencesRemove from './sequences/remove.js';
import stepsAdd from './steps/add.js';
import stepsList from './steps/list.js';
import stepsRemove from './steps/remove.js';
import usersCreate from './users/create.js';
import usersList from './users/list.js';
import usersSetRole from './users/set-role.js';
import usersReset from './users/reset.js';
import usersRemove from './users/remove.js';

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

export const commands: CommandSpec[] = [
  serve,
  init,
  version,
  backup,
  restore,
  doctor,
  status,
  completion,
  migrate,
  workspacesCreate,
  workspacesList,
  workspacesSetPlan,
  workspacesUsage,
  workspacesShow,
  workspacesDelete,
  keysCreate,
  keysList,
  keysRevoke,
  domainsAdd,
  domainsList,
  domainsShow,
  domainsRecords,
  domainsVerify,
  domainsRemove,
  addressesAdd,
  addressesList,
  addressesDisable,
  addressesEnable,
  addressesRemove,
  messagesList,
  messagesShow,
  messagesEvents,
  messagesExplain,
  queueList,
  queueShow,
  queueRetry,
  queueCancel,
  inboxList,
  inboxThreads,
  inboxMark,
  inboxDelete,
  inboxShow,
  inboxWatch,
  listsCreate,
  listsList,
  listsShow,
  listsRemove,
  subscribersAdd,
  subscribersList,
  subscribersRemove,
  subscribersUnsubscribe,
  subscribersImport,
  broadcastsSend,
  broadcastsList,
  broadcastsShow,
  broadcastsCancel,
  broadcastsWatch,
  sequencesCreate,
  sequencesList,
  sequencesRemove,
  stepsAdd,
  stepsList,
  stepsRemove,
  usersCreate,
  usersList,
  usersSetRole,
  usersReset,
  usersRemove,
  suppressionsList,
  suppressionsAdd,
  suppressionsRemove,
  webhooksAdd,
  webhooksList,
  webhooksRemove,
  webhooksDisable,
  webhooksEnable,
  webhooksRotateSecret,
  webhooksDeliveries,
  webhooksReplay,
  webhooksTest,
  webhooksTail,
  storeCheck,
  storeRepair,
  storeRekey,
  configShow,
];

// Every command of the binary. A new command is a new file here and a line below.
import type { CommandSpec } from './spec.js';
import serve from './serve.js';
import migrate from './migrate.js';
import workspacesCreate from './workspaces/create.js';
import workspacesList from './workspaces/list.js';
import workspacesSetPlan from './workspaces/set-plan.js';
import keysCreate from './keys/create.js';
import keysList from './keys/list.js';
import keysRevoke from './keys/revoke.js';

export const nouns: Record<string, string> = {
  workspaces: 'workspaces (tenants) and their plans',
  keys: "the workspace's API keys",
};

export const commands: CommandSpec[] = [serve, migrate, workspacesCreate, workspacesList, workspacesSetPlan, keysCreate, keysList, keysRevoke];

// Which workspace a command means: the one named (an unknown name lists the ones there are), or
// the only one there is. Needs only the store's workspaces, so that a command that touches nothing
// else (`svc keys list`) selects without the rest of the service (workspaces.ts uses it too).
import { SvcError } from '../errors.js';
import type { Workspace } from '../model/workspace.js';
import type { StoreSlice } from '../store/types.js';

type Workspaces = StoreSlice<'workspaces'>['workspaces'];

/** The names there are, for an error that says which to choose from (at most 10 named). */
async function existing(workspaces: Workspaces): Promise<string> {
  const names = (await workspaces.list()).map((w) => w.name);
  if (!names.length) return 'there is none yet: create one with `svc workspaces create NAME`';
  return `the workspaces are: ${names.slice(0, 10).join(', ')}${names.length > 10 ? `, and ${names.length - 10} more (svc workspaces list)` : ''}`;
}

export async function workspaceByName(workspaces: Workspaces, name: string): Promise<Workspace> {
  const ws = await workspaces.getByName(name);
  if (!ws) throw new SvcError('not_found', `workspace '${name}' not found; ${await existing(workspaces)}`);
  return ws;
}

/** The workspace a workspace-scoped command works on: the one named, or the only one there is. */
export async function selectWorkspace(workspaces: Workspaces, name: string | undefined): Promise<Workspace> {
  if (name !== undefined) return workspaceByName(workspaces, name);
  const all = await workspaces.list();
  if (all.length === 1) return all[0]!;
  throw new SvcError(
    'usage',
    all.length === 0
      ? 'no workspace yet: create one with `svc workspaces create NAME`'
      : `--workspace is required: ${await existing(workspaces)}`,
  );
}

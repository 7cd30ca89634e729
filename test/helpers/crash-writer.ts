// Child process for the crash test: writes to a file store as fast as it can, printing the id of
// every key whose create has resolved (so is on disk), until it is killed.
import { randomUUID } from 'node:crypto';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.js';

const store = await SqliteStore.open(process.argv[2]!, 'admin');
const ws = await store.workspaces.create({ id: randomUUID(), name: 'crash', plan: 'trial', created_at: new Date().toISOString() });
process.stdout.write('ready\n');
for (let i = 0; ; i++) {
  // Several writes in flight at once, as a busy daemon has.
  const batch = Array.from({ length: 8 }, () =>
    store.keys.create({
      id: randomUUID(),
      workspace_id: ws.id,
      name: `k${i}`,
      scopes: ['send'],
      prefix: 'svc_00000000',
      hash: randomUUID().replace(/-/g, '') + randomUUID().replace(/-/g, ''),
      created_at: new Date().toISOString(),
      revoked_at: null,
    }),
  );
  for (const k of await Promise.all(batch)) process.stdout.write(k.id + '\n');
}

// `npm run bench [-- SECTION...]`: prints figures; nothing here passes or fails.
import { coldStart, foundation } from './foundation.js';
import { postgres } from './postgres.js';
import { domains } from './domains.js';
import { send, sendE2E, idempotencyCost } from './send.js';
import { relay, relayMemory } from './relay.js';
import { peer } from './peer.js';
import { webhooks } from './webhooks.js';
import { tracking } from './tracking.js';
import { mx } from './mx.js';
import { inbox } from './inbox.js';
import { lists } from './lists.js';
import { broadcast } from './broadcast.js';
import { app } from './app.js';
import { api } from './api.js';
import { soak } from './soak.js';
import { store } from './store.js';

const sections: Record<string, () => Promise<void>> = {
  foundation,
  cli: () => coldStart(),
  postgres,
  domains,
  send,
  relay,
  peer,
  'relay-memory': relayMemory,
  idempotency: idempotencyCost,
  webhooks,
  tracking,
  mx,
  inbox,
  lists,
  broadcast,
  app,
  api,
  e2e: sendE2E,
  soak,
  store,
};
const wanted = process.argv.slice(2);
// e2e is the end-to-end part of `send` alone, for quick runs; soak runs the soak tests at full
// size (minutes); store compares the embedded store with the build before it (tens of minutes);
// the default runs everything else once.
for (const name of wanted.length ? wanted : Object.keys(sections).filter((s) => s !== 'e2e' && s !== 'soak' && s !== 'store')) {
  const run = sections[name];
  if (!run) {
    process.stderr.write(`unknown bench section ${name} (have: ${Object.keys(sections).join(', ')})\n`);
    process.exit(2);
  }
  process.stdout.write(`== ${name}\n`);
  await run();
}

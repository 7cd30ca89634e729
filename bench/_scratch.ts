import { withRelay } from './relay.js';
import { backends } from './send.js';
import { drive } from './smtp-harness.js';
await withRelay(async ({ relayPort, key }) => {
  await drive({ port: relayPort, auth: key }, 1000);
  console.log('rate', await drive({ port: relayPort, auth: key }, 8000));
}, backends[1]);

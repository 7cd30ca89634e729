// `npm run build`, after tsc: every command's usage as data (commands/manifest.ts), beside the
// compiled commands, so that the binary starts without loading them.
import { writeFileSync } from 'node:fs';

const { makeManifest } = await import('../dist/commands/manifest.js');
writeFileSync(new URL('../dist/commands/manifest.json', import.meta.url), JSON.stringify(await makeManifest()) + '\n');

// npm's postinstall: patches/ applied by patch-package, a development dependency. One patch is
// left (docs/development.md "Dependencies we patch"): a speed-up of html-to-text's element matcher, worth 40 %
// of a text made from HTML. An install without development dependencies (`npm ci --omit=dev`) has
// no patch-package: svc then runs on the package as published, slower there and otherwise the same,
// and this says so in one line. A patch that no longer applies fails the install.
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';

let bin;
try {
  bin = createRequire(import.meta.url).resolve('patch-package/dist/index.js');
} catch {
  console.log('svc: patch-package is not installed (a production install): patches/ not applied; text made from HTML is slower');
  process.exit(0);
}
const r = spawnSync(process.execPath, [bin, '--error-on-fail'], { stdio: 'inherit' });
process.exit(r.status ?? 1);

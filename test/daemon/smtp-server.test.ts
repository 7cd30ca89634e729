// What svc leans on inside smtp-server and html-to-text's selector plugin, so that an upgrade that
// changes it fails here rather than in production: the connection's private `_setListeners` (the
// relay greets at once without smtp-server's early-talker pause: daemon/smtp/server.ts) and the
// server's connect() that svc's replaces; and the speed-up patch of the selector plugin
// (patches/, applied by `npm ci`).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { SMTPServer } from 'smtp-server';
import { SMTPConnection } from 'smtp-server/lib/smtp-connection.js';

const require = createRequire(import.meta.url);

test("smtp-server: the connection's init() sets its listeners then greets after a pause; connect() makes, adds and inits one", () => {
  const init = SMTPConnection.prototype.init.toString();
  assert.match(init, /this\._setListeners\(/, 'init() sets the socket handlers through _setListeners');
  assert.match(init, /setTimeout\(\(\) => this\.connectionReady\(\)/, 'init() greets after a timer (the pause svc skips on the relay)');
  assert.equal(typeof SMTPConnection.prototype._setListeners, 'function');
  assert.equal(typeof SMTPConnection.prototype.connectionReady, 'function');
  const connect = SMTPServer.prototype.connect.toString();
  for (const step of [
    'new smtp_connection',
    'this.connections.add(connection)',
    "connection.on('error'",
    "connection.on('connect'",
    'connection.init()',
  ])
    assert.ok(connect.replace(/_js_1\.SMTPConnection|SMTPConnection/g, 'smtp_connection').includes(step), `connect(): ${step}`);
});

test('the patch of html-to-text’s selector plugin is applied to the version it was made for', () => {
  const pkg = JSON.parse(readFileSync(require.resolve('@selderee/plugin-htmlparser2/package.json'), 'utf8')) as { version: string };
  assert.equal(pkg.version, '0.12.0', 'patches/@selderee+plugin-htmlparser2+0.12.0.patch is for 0.12.0 (package.json overrides pins it)');
  const builder = readFileSync(require.resolve('@selderee/plugin-htmlparser2').replace(/[^/]+$/, 'hp2-builder.cjs'), 'utf8');
  assert.match(builder, /function concatAll\(/, 'the patch is applied (npm ci runs scripts/apply-patches.mjs)');
});

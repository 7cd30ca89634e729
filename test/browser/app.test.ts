/// <reference lib="dom" />
// The web app in a real browser: Debian's Chromium driven by playwright-core against the
// real daemon. Sign in through a one-time link, read a thread whose HTML tries to run script and
// load a remote image (neither happens), reply, see new mail arrive without a reload, create an API
// key and see it once. Screenshots of the inbox at 360 and 1280 px are kept in
// test-artifacts/screenshots/ (not committed). Skipped, with the reason, where Chromium is absent
// (.ci/run installs it when it can). Both backends.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { TEST_DATABASE_URL } from '../helpers/pg.js';
import { plainMail, transact } from '../helpers/mx.js';
import { answeredThread } from '../helpers/app-browser.js';
import { createRequire } from 'node:module';
import { fromRoot } from '../helpers/root.js';

const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** axe-core's findings on the page as it is now, of any impact (WCAG 2.1 A and AA, best practices). */
async function axeFindings(page: Page): Promise<string[]> {
  // Evaluated through the debugging protocol: the app's CSP (script-src 'self') refuses a script tag.
  await page.evaluate(AXE);
  const r = await page.evaluate(() =>
    (
      window as unknown as {
        axe: {
          run(o: object): Promise<{ violations: Array<{ id: string; impact: string; help: string; nodes: Array<{ target: string[] }> }> }>;
        };
      }
    ).axe.run({
      runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] },
    }),
  );
  return r.violations.map((v) => `${v.id} (${v.impact}): ${v.help} at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

const CHROMIUM = process.env.SVC_TEST_CHROMIUM ?? '/usr/bin/chromium';
const ARTIFACTS = fromRoot('test-artifacts', 'screenshots');
/** Every wait in a page has a deadline. */
const WAIT_MS = 15_000;
/** A reply whose HTML runs script and loads an image from `tracker` (a server of the test's, counting its hits). */
const hostile = (tracker: string) =>
  `<p>Thanks, that helps!</p><script>document.title="pwned";parent.document.title="pwned"</script><img src="${tracker}/p.gif" alt="tracker">`;

/** A remote server as a tracking pixel's: it counts what it is asked for. */
async function pixelServer(t: { after(fn: () => unknown): void }) {
  const hits: string[] = [];
  const server = createServer((req, res) => {
    hits.push(req.url ?? '');
    res.writeHead(200, { 'content-type': 'image/gif' }).end(Buffer.from('R0lGODlhAQABAAAAACw=', 'base64'));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.after(() => new Promise((r) => server.close(r)));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, hits };
}

/** As the machine's own probe starts it: no sandbox as root, nothing in the background reaching out. */
const launch = () =>
  chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    timeout: WAIT_MS,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });

for (const backend of ['file', ...(TEST_DATABASE_URL ? ['postgres'] : [])]) {
  test(`${backend}: in Chromium: sign in, read a hostile thread safely, reply, new mail arrives live, a key shown once; inbox screenshots`, async (t) => {
    if (!existsSync(CHROMIUM)) return t.skip(`no Chromium at ${CHROMIUM} (apt-get install chromium, or set SVC_TEST_CHROMIUM)`);
    const pixel = await pixelServer(t);
    const s = await answeredThread(t, backend, hostile(pixel.url));
    const { service } = s.daemon;
    const mx = s.daemon.url('mx');
    const owner = await service.people.create(s.ws, { email: 'ann@acme.test', role: 'owner', name: 'Ann' });

    const browser: Browser = await launch();
    t.after(() => browser.close());
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    context.setDefaultTimeout(WAIT_MS);
    const page: Page = await context.newPage();
    const remote: string[] = [];
    const problems: string[] = [];
    // Requests to elsewhere but the pixel's server, which counts its own (the browser's events come late).
    page.on('request', (r) => {
      if (!r.url().startsWith(s.api) && !r.url().startsWith(pixel.url)) remote.push(r.url());
    });
    page.on('pageerror', (e) => problems.push(e.message));

    // Sign in through the one-time link.
    await page.goto(owner.sign_in_url!);
    await page.getByLabel('New password').fill('correct horse battery');
    await page.getByRole('button', { name: 'Save and sign in' }).click();
    await page.waitForURL(`${s.api}/app/`);
    await page.getByRole('link', { name: 'Inbox' }).click();
    await page.waitForURL(/\/app\/w\/acme\/inbox$/);
    assert.equal(await page.locator('li.unread').count(), 1);
    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: join(ARTIFACTS, `${backend}-inbox-1280.png`), fullPage: true });

    // The thread: her HTML is in a sandboxed frame; its script does not run, its image is not fetched.
    await page.locator('li.unread a').click();
    await page.waitForURL(/\/inbox\/t\//);
    const hers = page.getByRole('article', { name: 'Reply from jane@rcpt.test' }).locator('iframe.mail');
    const frame = hers.contentFrame();
    await frame.getByText('Thanks, that helps!').waitFor();
    assert.equal(await page.title(), 'Hello · svc');
    const inner = (await (await hers.elementHandle())!.contentFrame())!;
    assert.notEqual(await inner.evaluate(() => document.title), 'pwned');
    assert.equal(await frame.locator('script').count(), 1, 'the script is there, inert');
    // The frame takes focus (for its links) and shows that it has it.
    await hers.focus();
    assert.equal(await hers.evaluate((e) => getComputedStyle(e).outlineStyle), 'solid', 'a focused mail frame is outlined');
    assert.deepEqual([remote, pixel.hits], [[], []], 'nothing fetched from elsewhere');
    // Asked for, remote images are loaded for that message.
    await page
      .getByRole('article', { name: 'Reply from jane@rcpt.test' })
      .getByRole('link', { name: 'Show images in this message' })
      .click();
    await page.getByText('Remote images are shown.').waitFor();
    await frame
      .getByAltText('tracker')
      .evaluate((img: HTMLImageElement) => (img.complete ? null : new Promise((r) => (img.onload = img.onerror = r))));
    assert.deepEqual(pixel.hits, ['/p.gif']);

    // Reply from the browser.
    const before = s.sink.received.length;
    await page.getByLabel('Your reply').fill('Glad it helped.');
    await page.getByRole('button', { name: 'Send reply' }).click();
    await page.getByText('Reply sent.').waitFor();
    await s.sink.waitFor(before + 1);
    assert.deepEqual(s.sink.received.at(-1)!.to, ['jane@rcpt.test']);
    await frame.getByText('Thanks, that helps!').waitFor();
    await page.screenshot({ path: join(ARTIFACTS, `${backend}-thread-1280.png`), fullPage: true });
    await page
      .getByRole('article', { name: 'Reply from jane@rcpt.test' })
      .screenshot({ path: join(ARTIFACTS, `${backend}-thread-reply.png`) });

    // New mail shows in the open inbox without a reload.
    await page.getByRole('link', { name: 'Inbox', exact: true }).first().click();
    await page.waitForURL(/\/app\/w\/acme\/inbox$/);
    const marker = await page.evaluate(() => ((window as unknown as { marker: number }).marker = Math.random()));
    assert.match(
      (await transact(mx, 'sam@elsewhere.test', ['hello@acme.test'], plainMail('sam@elsewhere.test', 'hello@acme.test', 'Arrived live')))
        .end,
      /^250 /,
    );
    await page.getByText('Arrived live').waitFor();
    assert.equal(await page.evaluate(() => (window as unknown as { marker: number }).marker), marker, 'the same page: not reloaded');

    // Screenshots of the inbox at a phone's width and a desktop's.
    await page.setViewportSize({ width: 360, height: 780 });
    await page.screenshot({ path: join(ARTIFACTS, `${backend}-inbox-360.png`), fullPage: true });
    // Every workspace page fits a phone's width (wide tables scroll in their own box), and axe-core
    // finds nothing serious on it.
    const findings: string[] = [];
    for (const name of ['inbox', 'messages', 'workspace', 'domains', 'addresses', 'keys', 'webhooks', 'people']) {
      if (name !== 'inbox') {
        await page.goto(`${s.api}/app/w/acme/${name}`);
        await page.screenshot({ path: join(ARTIFACTS, `${backend}-${name}-360.png`), fullPage: true });
      }
      findings.push(...(await axeFindings(page)).map((f) => `${name}: ${f}`));
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      assert.ok(overflow <= 0, `${name} fits 360 px (${overflow} px too wide)`);
      // A table wider than its box shows that it scrolls: the box draws edge shadows.
      const hidden = await page.evaluate(() =>
        Array.from(document.querySelectorAll('.wide'))
          .filter((box) => box.scrollWidth > box.clientWidth)
          .map((box) => getComputedStyle(box).backgroundImage),
      );
      for (const background of hidden)
        assert.match(background, /radial-gradient.*radial-gradient/, `${name}: a wide table's box has scroll shadows`);
      // The people table (a role picker and a Remove button on each row) is the one that overflows at 360 px.
      if (name === 'people') assert.ok(hidden.length > 0, 'the people table is wider than 360 px: the case the shadows are for');
    }
    // The pages a workspace page leads to: a thread, a message, the sign-in and the home page.
    await page.goto(`${s.api}/app/w/acme/inbox`);
    await page.locator('ul.threads a').first().click();
    await page.waitForURL(/\/inbox\/t\//);
    findings.push(...(await axeFindings(page)).map((f) => `thread: ${f}`));
    await page.goto(`${s.api}/app/w/acme/messages`);
    await page.locator('main table a').first().click();
    await page.waitForURL(/\/messages\/[0-9a-f-]{36}$/);
    const heading = await page.locator('h1').evaluate((h) => h.scrollWidth - h.clientWidth);
    assert.ok(heading <= 0, `the message page's heading wraps at 360 px (${heading} px too wide)`);
    await page.screenshot({ path: join(ARTIFACTS, `${backend}-message-360.png`), fullPage: true });
    findings.push(...(await axeFindings(page)).map((f) => `message: ${f}`));
    await page.goto(`${s.api}/app/`);
    findings.push(...(await axeFindings(page)).map((f) => `home: ${f}`));
    await page.setViewportSize({ width: 1280, height: 900 });
    assert.deepEqual(findings, []);

    // An API key: created, shown once, gone on the next look.
    await page.goto(`${s.api}/app/w/acme/keys`);
    await page.getByLabel('Name').fill('ci');
    await page.getByRole('button', { name: 'Create key' }).click();
    const key = await page.getByLabel('The new key').inputValue();
    assert.match(key, /^svc_/);
    await page.goto(`${s.api}/app/w/acme/keys`);
    assert.equal(await page.getByLabel('The new key').count(), 0);
    assert.doesNotMatch(await page.content(), new RegExp(key));
    const me = await fetch(`${s.api}/api/v2/me`, { headers: { authorization: `Bearer ${key}` } });
    assert.equal(me.status, 200, 'the key works');

    // A member, signed in in a browser of their own: the same inbox with the hostile reply, its
    // frame as inert for them, at a desktop's width and a phone's.
    const member = await service.people.create(s.ws, { email: 'max@acme.test', role: 'member', name: 'Max' });
    const theirs = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    theirs.setDefaultTimeout(WAIT_MS);
    const mine = await theirs.newPage();
    mine.on('pageerror', (e) => problems.push(e.message));
    await mine.goto(member.sign_in_url!);
    await mine.getByLabel('New password').fill('another horse battery');
    await mine.getByRole('button', { name: 'Save and sign in' }).click();
    await mine.waitForURL(`${s.api}/app/`);
    await mine.goto(`${s.api}/app/w/acme/inbox`);
    await mine.screenshot({ path: join(ARTIFACTS, `${backend}-member-inbox-1280.png`), fullPage: true });
    await mine.getByRole('link', { name: 'Hello' }).first().click();
    await mine.waitForURL(/\/inbox\/t\//);
    const herFrame = mine.getByRole('article', { name: 'Reply from jane@rcpt.test' }).locator('iframe.mail');
    await herFrame.contentFrame().getByText('Thanks, that helps!').waitFor();
    assert.notEqual(await mine.title(), 'pwned');
    await mine.setViewportSize({ width: 360, height: 780 });
    await mine.screenshot({ path: join(ARTIFACTS, `${backend}-member-thread-360.png`), fullPage: true });
    const overflow = await mine.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    assert.ok(overflow <= 0, `the thread fits 360 px for a member (${overflow} px too wide)`);
    await theirs.close();

    assert.deepEqual(remote, [], remote.join(' '));
    assert.deepEqual(pixel.hits, ['/p.gif'], 'images only on the page that allowed them');
    assert.deepEqual(problems, []);
    console.log(`# screenshots: ${ARTIFACTS}/${backend}-inbox-{360,1280}.png`);
  });
}

// CSV import of subscribers over REST (spec.md CSV import rules): a header row (email, name or
// first_name or full_name, tags split on semicolons) or none (the first column is the email);
// quoted fields with commas and newlines, a BOM, CRLF; invalid rows skipped and listed (errors null
// when none); new rows active even on a double opt-in list; rows on the list updated, their status
// kept; `csv body required`; an import past the contacts quota refused whole (402, how many it would
// add); a 10 MB CSV within the body limit. Both backends.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sending } from '../helpers/sending.js';
import { TEST_DATABASE_URL, migratedSchemaUrl, pgLocation } from '../helpers/pg.js';

for (const backend of ['file', ...(TEST_DATABASE_URL ? ['postgres'] : [])]) {
  test(`${backend}: CSV import over REST: headers, quoting, BOM and CRLF, errors, upserts, the contacts quota, 10 MB`, async (t) => {
    const pgUrl = backend === 'postgres' ? await migratedSchemaUrl(t) : null;
    const s = await sending(t, { plan: 'trial', ...(pgUrl ? { store: pgLocation(pgUrl) } : {}) });
    const { service } = s.daemon;
    const nl = (await service.keys.create(s.ws, { scopes: 'newsletter' })).key;
    const list = await service.lists.create(s.ws, { name: 'News', double_opt_in: true, from_address: 'hello@acme.test' });
    const path = `/api/v2/lists/${list.id}/subscribers/import`;
    const post = (csv: unknown) => s.call('POST', path, { csv }, nl);
    const all = async () => (await service.lists.subscribers(s.ws, list.id, { limit: 1000 })).data;

    assert.deepEqual(await post(undefined).then((r) => [r.status, r.body.error]), [400, 'csv body required']);
    assert.deepEqual(await post('  ').then((r) => [r.status, r.body.error]), [400, 'csv body required']);
    assert.equal((await s.call('POST', path, { csv: 'a@b.test' }, s.key)).body.error, 'missing permission: newsletter');
    assert.equal((await s.call('POST', '/api/v2/lists/nope/subscribers/import', { csv: 'a@b.test' }, nl)).status, 404);

    // A header row in another order, a BOM, CRLF, a quoted name with a comma and a newline, tags.
    const withHeader =
      '\uFEFFTags,Email,First_Name\r\nvip;beta, Jane@Rcpt.TEST ,"Jane, ""JJ""\r\nDoe"\r\n;;,bob@rcpt.test,Bob\r\nx,not-an-email,Nobody\r\n\r\n';
    const r1 = await post(withHeader);
    assert.equal(r1.status, 200);
    assert.deepEqual(r1.body, {
      imported: 2,
      skipped: 1,
      errors: [{ line: 5, email: 'not-an-email', error: 'invalid email: expected local@domain' }],
    });
    assert.deepEqual(
      (await all()).map((x) => [x.email, x.name, x.tags, x.status]),
      [
        ['jane@rcpt.test', 'Jane, "JJ" Doe', ['vip', 'beta'], 'active'],
        ['bob@rcpt.test', 'Bob', [], 'active'],
      ],
    );
    // No header: the first column is the email; rows on the list keep their status and tags (no tags column).
    await service.lists.unsubscribe(s.ws, list.id, (await all())[1]!.id);
    const r2 = await post('carol@rcpt.test,Carol\nbob@rcpt.test,Robert\ncarol@rcpt.test,Carol again\n');
    assert.deepEqual(r2.body, { imported: 2, skipped: 0, errors: null });
    assert.deepEqual(
      (await all()).map((x) => [x.email, x.name, x.status]),
      [
        ['jane@rcpt.test', 'Jane, "JJ" Doe', 'active'],
        ['bob@rcpt.test', '', 'unsubscribed'],
        ['carol@rcpt.test', '', 'active'],
      ],
    );
    const r3 = await post('full_name,email\nJane Doe,jane@rcpt.test\n');
    assert.deepEqual(r3.body, { imported: 1, skipped: 0, errors: null });
    assert.deepEqual((await all())[0]!.tags, ['vip', 'beta'], 'no tags column: tags kept');
    // A CSV that cannot be read: a clear 400.
    const broken = await post('email,name\n"unterminated,x\n');
    assert.equal(broken.status, 400);
    assert.match(broken.body.error, /^the CSV cannot be read: /);

    // The contacts quota (trial: 100): 3 in use; an import adding 98 is refused whole, 97 fits.
    const rows = (n: number, from = 0) => Array.from({ length: n }, (_, i) => `p${from + i}@rcpt.test`).join('\n');
    const over = await post(rows(98));
    assert.equal(over.status, 402);
    assert.deepEqual(
      { ...over.body, error: 'x', upgrade_url: 'x' },
      { error: 'x', code: 'quota_exceeded', kind: 'contacts', limit: 100, used: 3, would_add: 98, upgrade_url: 'x' },
    );
    assert.match(over.body.error, /^this import would add 98 new contacts; the trial plan allows 100 \(3 in use\)/);
    assert.equal((await all()).length, 3, 'nothing written');
    assert.deepEqual((await post(`${rows(97)}\njane@rcpt.test`)).body, { imported: 98, skipped: 0, errors: null });

    // 10 MB of CSV on a scale workspace: within the body limit; errors capped at 100 with the total.
    // Rows of about a kilobyte (a long quoted name), so 10 MB is some 10,000 rows, 1 in 50 invalid:
    // the body limit and the error cap are what is proven, not the store's speed (the benchmark's).
    await service.workspaces.setPlan('acme', 'scale');
    const big = await service.lists.create(s.ws, { name: 'Big' });
    const lines: string[] = ['email,name,tags'];
    const pad = 'x'.repeat(1000);
    let size = 0;
    for (let i = 0; size < 10 * 1024 * 1024; i++) {
      const line = i % 50 === 49 ? `bad-${i},"Name, ${i} ${pad}",a;b` : `user${i}@example${i % 50}.test,"Name, ${i} ${pad}",a;b`;
      lines.push(line);
      size += line.length + 1;
    }
    const r4 = await s.call('POST', `/api/v2/lists/${big.id}/subscribers/import`, { csv: lines.join('\n') }, nl);
    assert.equal(r4.status, 200);
    assert.ok(lines.join('\n').length >= 10 * 1024 * 1024);
    const bad = Math.floor((lines.length - 1) / 50);
    assert.deepEqual(
      [r4.body.imported, r4.body.skipped, r4.body.errors.length, r4.body.errors_total],
      [lines.length - 1 - bad, bad, Math.min(bad, 100), bad],
    );
    assert.equal((await service.lists.get(s.ws, big.id)).subscriber_count, lines.length - 1 - bad);
  });
}

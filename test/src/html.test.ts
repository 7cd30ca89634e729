import { test } from 'node:test';
import assert from 'node:assert/strict';
import { escapeHtml, html, joined, raw } from '../../src/html.js';

test('html escapes every value but HTML made by html or raw', () => {
  const hostile = `"><script>alert('x')</script>&`;
  assert.equal(escapeHtml(hostile), '&#34;&#62;&#60;script&#62;alert(&#39;x&#39;)&#60;/script&#62;&#38;');
  assert.equal(html`<p title="${hostile}">${hostile}</p>`.text, `<p title="${escapeHtml(hostile)}">${escapeHtml(hostile)}</p>`);
  const inner = html`<b>${'<i>'}</b>`;
  assert.equal(html`<p>${inner}</p>`.text, '<p><b>&#60;i&#62;</b></p>', 'HTML made by html is put in as it is, once escaped');
  assert.equal(html`${raw('<hr>')}`.text, '<hr>');
  assert.equal(html`${['<a>', html`<br>`, 3, [html`<i>`, '&']]}`.text, '&#60;a&#62;<br>3<i>&#38;');
  assert.equal(html`[${null}${undefined}${false}${0}]`.text, '[0]', 'nothing for null, undefined and false; a number is its digits');
  assert.equal(joined([html`<a>1</a>`, '<2>'], ' · ').text, '<a>1</a> · &#60;2&#62;');
  assert.equal(String(html`<p>${'x'}</p>`), '<p>x</p>');
});

// `npm run docs`: writes the parts of README.md and man/svc.1 that come from the settings table
// (src/settings.ts): the README's configuration table and the man page's ENVIRONMENT list. A test
// (test/docs.test.ts) fails when they differ from the table, so an edit there is followed by this.
import { readFileSync, writeFileSync } from 'node:fs';
import { manEnvironment, markdownTable } from '../src/settings.js';

export const README_BLOCK = ['<!-- settings: generated from src/settings.ts by npm run docs -->', '<!-- settings end -->'] as const;
export const MAN_BLOCK = ['.\\" environment: generated from src/settings.ts by npm run docs', '.\\" environment end'] as const;

export function replaceBlock(text: string, [begin, end]: readonly [string, string], body: string): string {
  const i = text.indexOf(begin);
  const j = text.indexOf(end, i);
  if (i < 0 || j < 0) throw new Error(`markers ${begin} ... ${end} not found`);
  return `${text.slice(0, i + begin.length)}\n${body}\n${text.slice(j)}`;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const root = new URL('..', import.meta.url);
  const readme = new URL('README.md', root);
  const man = new URL('man/svc.1', root);
  writeFileSync(readme, replaceBlock(readFileSync(readme, 'utf8'), README_BLOCK, markdownTable()));
  writeFileSync(man, replaceBlock(readFileSync(man, 'utf8'), MAN_BLOCK, manEnvironment()));
}

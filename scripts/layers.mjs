// The layers of ARCHITECTURE.md, read with TypeScript's own parser: every import a file makes
// (`import ... from`, `export ... from`, `import()`, type-only ones marked), however it is written
// (over several lines, as Prettier writes long imports). It fails on an import the layers forbid:
// - src/model/ imports nothing of ours but itself and the error registry;
// - src/store/ builds on the model alone (and the error registry, the Log type);
// - src/ imports neither daemon/ nor commands/, nor the transports' libraries;
// - daemon/ never imports commands/;
// - the top-level folders of src/ form no cycle (a folder that needs another's rule and is needed
//   by it means one of them holds what belongs below both);
// - the sideways reaches ARCHITECTURE.md names (SIDEWAYS).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

const root = new URL('..', import.meta.url).pathname;
const walk = (dir) =>
  readdirSync(join(root, dir)).flatMap((n) => {
    const p = join(dir, n);
    return statSync(join(root, p)).isDirectory() ? walk(p) : /\.tsx?$/.test(p) && !p.endsWith('.d.ts') ? [p] : [];
  });

/** Every import of a file: its specifier, whether it is type-only, and its line. */
export function importsOf(file, text = readFileSync(join(root, file), 'utf8')) {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, file.endsWith('x') ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  const out = [];
  const at = (node) => source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
  const visit = (node) => {
    if (
      (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) &&
      node.moduleSpecifier &&
      ts.isStringLiteral(node.moduleSpecifier)
    ) {
      const typeOnly = ts.isImportDeclaration(node)
        ? Boolean(node.importClause?.isTypeOnly) ||
          Boolean(
            node.importClause &&
            !node.importClause.name &&
            node.importClause.namedBindings &&
            ts.isNamedImports(node.importClause.namedBindings) &&
            node.importClause.namedBindings.elements.length > 0 &&
            node.importClause.namedBindings.elements.every((e) => e.isTypeOnly),
          )
        : node.isTypeOnly;
      out.push({ spec: node.moduleSpecifier.text, typeOnly, line: at(node) });
    } else if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0] &&
      ts.isStringLiteralLike(node.arguments[0])
    ) {
      out.push({ spec: node.arguments[0].text, typeOnly: false, line: at(node), dynamic: true });
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
      out.push({ spec: node.argument.literal.text, typeOnly: true, line: at(node) });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return out;
}

/** The file an import names (relative to the checkout), or the package's name. */
const target = (file, spec) =>
  spec.startsWith('.')
    ? relative(root, resolve(dirname(join(root, file)), spec)).replace(/\.js$/, '.ts')
    : spec.replace(/^(@[^/]+\/[^/]+|[^/]+).*$/, '$1');
/** The top-level folder of src/ a file is in (`.` for src/'s own files). */
const folderOf = (path) => (path.startsWith('src/') ? (path.split('/').length > 2 ? path.split('/')[1] : '.') : null);

const LAYERS = [
  { dir: 'src/model/', may: (t) => t.startsWith('src/model/') || t === 'src/errors.ts' || !t.includes('/') },
  {
    dir: 'src/store/',
    may: (t) =>
      t.startsWith('src/model/') || t.startsWith('src/store/') || ['src/errors.ts', 'src/log.ts'].includes(t) || !t.startsWith('src/'),
  },
  {
    dir: 'src/',
    may: (t) =>
      !t.startsWith('daemon/') && !t.startsWith('commands/') && !['fastify', 'commander', 'smtp-server', 'ink', 'react'].includes(t),
  },
  { dir: 'daemon/', may: (t) => !t.startsWith('commands/') },
];

/** Reaches across that ARCHITECTURE.md forbids: [from, to, why]. */
const SIDEWAYS = [
  ['src/inbox/', 'src/send/', 'what both directions need (bounce classes, event builders) lives below both, in src/model/ or src/mail/'],
  ['src/send/compose/', 'src/tracking/', 'the pixel and tracked links compose from src/mail/ (tracked-link.ts), not from the recorder'],
  ['daemon/mx.ts', 'daemon/relay.ts', 'what the relay and the MX share is in the SMTP base, daemon/smtp/'],
  ['daemon/mx.ts', 'src/relay/', 'what the relay and the MX share is in the SMTP base, daemon/smtp/, or in src/mail/'],
];

/**
 * Every problem of the tree as lines `file:line: why`; or of the files given, read with `read`
 * (a test plants files this way).
 */
export function layerProblems(
  files = ['src', 'daemon', 'commands'].flatMap(walk),
  read = (file) => readFileSync(join(root, file), 'utf8'),
) {
  const problems = [];
  const edges = new Map();
  for (const file of files) {
    for (const imp of importsOf(file, read(file))) {
      const t = target(file, imp.spec);
      for (const layer of LAYERS)
        if (file.startsWith(layer.dir) && !layer.may(t)) {
          problems.push(
            `${file}:${imp.line}: ${layer.dir} imports ${t}${imp.typeOnly ? ' (type only)' : ''}${imp.dynamic ? ' (import())' : ''}, above its layer`,
          );
          break;
        }
      for (const [from, to, why] of SIDEWAYS)
        if (file.startsWith(from) && t.startsWith(to)) problems.push(`${file}:${imp.line}: imports ${t} sideways: ${why}`);
      const a = folderOf(file);
      const b = folderOf(t);
      if (a && b && a !== b && a !== '.') {
        if (!edges.has(a)) edges.set(a, new Map());
        if (!edges.get(a).has(b)) edges.get(a).set(b, `${file}:${imp.line}`);
      }
    }
  }
  // Folder cycles: a path from a folder back to itself, with the import that makes each step.
  for (const start of edges.keys()) {
    const stack = [[start, []]];
    const seen = new Set();
    while (stack.length) {
      const [at, path] = stack.pop();
      for (const [next, where] of edges.get(at) ?? []) {
        if (next === start) {
          if (start === [...path.map((p) => p.from), at].sort()[0])
            problems.push(
              `src/ folders form a cycle: ${[...path, { from: at, to: next, where }].map((p) => `${p.from} → ${p.to} (${p.where})`).join(', ')}`,
            );
          continue;
        }
        if (seen.has(next)) continue;
        seen.add(next);
        stack.push([next, [...path, { from: at, to: next, where }]]);
      }
    }
  }
  return problems;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const problems = layerProblems();
  for (const p of problems) console.error(p);
  if (problems.length) process.exit(1);
}

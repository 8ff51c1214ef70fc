// Fails when a package's src/ has a runtime import cycle (a.ts imports b.ts, which imports a.ts,
// directly or through others). A cycle makes the order modules run in depend on which one is
// imported first, so a class can be used before its module has defined it.
//
// Only runtime edges count: `import type …` and `export type … from` are erased by TypeScript.
// Under `verbatimModuleSyntax` (tsconfig.base.json), `import { type A } from './a.ts'` is still
// emitted (as `import {} from './a.ts'`), so it counts. Dynamic `import()` does not (it runs later).
//
// Usage: node scripts/check-cycles.mjs [--graph] [package-dir…]   (default: every packages/*)
//   --graph  also prints each file's runtime imports.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const showGraph = args.includes('--graph');
const given = args.filter((a) => !a.startsWith('--'));
const packages = given.length > 0 ? given.map((p) => resolve(p)) : readdirSync(join(root, 'packages')).map((p) => join(root, 'packages', p));

/** Every .ts file under dir. */
function sources(dir) {
  const out = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...sources(full));
    else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) out.push(full);
  }
  return out;
}

/** The relative modules a file imports at run time. */
export function runtimeImports(file) {
  const text = readFileSync(file, 'utf8');
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const out = [];
  for (const node of sf.statements) {
    let spec;
    if (ts.isImportDeclaration(node)) {
      if (node.importClause?.isTypeOnly) continue;
      spec = node.moduleSpecifier;
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier) {
      if (node.isTypeOnly) continue;
      spec = node.moduleSpecifier;
    } else continue;
    if (!ts.isStringLiteral(spec) || !spec.text.startsWith('.')) continue;
    out.push(resolve(dirname(file), spec.text));
  }
  return out;
}

/** Strongly connected components with more than one file, or a file importing itself (Tarjan). */
function cycles(graph) {
  let index = 0;
  const stack = [];
  const on = new Set();
  const idx = new Map();
  const low = new Map();
  const found = [];
  const visit = (v) => {
    idx.set(v, index);
    low.set(v, index++);
    stack.push(v);
    on.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!idx.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v), low.get(w)));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v), idx.get(w)));
    }
    if (low.get(v) === idx.get(v)) {
      const scc = [];
      let w;
      do {
        w = stack.pop();
        on.delete(w);
        scc.push(w);
      } while (w !== v);
      if (scc.length > 1 || (graph.get(v) ?? []).includes(v)) found.push(scc.reverse());
    }
  };
  for (const v of graph.keys()) if (!idx.has(v)) visit(v);
  return found;
}

let failed = false;
for (const pkg of packages) {
  const src = join(pkg, 'src');
  if (!existsSync(src)) continue;
  const graph = new Map();
  for (const file of sources(src)) graph.set(file, runtimeImports(file));
  const name = relative(root, pkg);
  if (showGraph) {
    console.log(`${name}:`);
    for (const [file, deps] of graph) console.log(`  ${relative(src, file)} → ${deps.map((d) => relative(src, d)).join(', ') || '(nothing)'}`);
  }
  for (const scc of cycles(graph)) {
    failed = true;
    console.error(`${name}: runtime import cycle among ${scc.map((f) => relative(src, f)).join(', ')}`);
  }
}
if (failed) process.exit(1);
console.log(`no runtime import cycle in ${packages.length === 1 ? relative(root, packages[0]) : `${packages.length} packages`}`);

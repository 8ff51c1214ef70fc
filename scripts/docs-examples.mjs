// Keeps the guides in docs/ (and the root README.md) and the files in docs/examples/ in step.
//
// A code block in a guide quotes an example file when the line before its fence is a marker:
//
//   <!-- example: getting-started/notes-api.ts#bodies -->
//   ```ts
//   …the lines between `// #region bodies` and `// #endregion` in that file…
//   ```
//
// Without `#region`, the block quotes the whole file. Region marker lines are left out, the
// quoted lines are dedented, and in a `sh` or `console` block the leading `// ` of each line is
// dropped (for the `// $ curl …` sessions the examples carry). Every `ts`/`js` block of a guide
// must quote a file, or say why it does not with `<!-- not run: reason -->` on the line before
// (the Express half of a before/after comparison, say).
//
// `pnpm test` runs this check (docs/examples/test/guides.test.ts). After editing an example,
// `node scripts/docs-examples.mjs --write` copies the quoted parts into the guides.
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const DOCS = join(root, 'docs');
export const EXAMPLES = join(DOCS, 'examples');

/** The guides, and the root README.md, whose code blocks are held to the rule. */
const GUIDES = () => [
  ...readdirSync(DOCS)
    .filter((n) => n.endsWith('.md'))
    .map((n) => ({ name: n, path: join(DOCS, n), shown: `docs/${n}` })),
  { name: 'README.md', path: join(root, 'README.md'), shown: 'README.md' },
];

/** Guides not held to the rule yet, with the reason. */
const PENDING = new Map();

const CODE = new Set(['ts', 'typescript', 'js', 'javascript', 'mjs', 'tsx']);
const SHELL = new Set(['sh', 'console', 'shell', 'bash']);
const EXAMPLE = /^<!-- example: ([^#\s]+)(?:#([\w-]+))? -->$/;
const NOT_RUN = /^<!-- not run: .+ -->$/;

/** The text a marker quotes: a whole file or one region, without region lines, dedented. */
export function quote(file, region) {
  const lines = readFileSync(file, 'utf8').split('\n');
  let picked;
  if (region) {
    const start = lines.findIndex((l) => l.trim() === `// #region ${region}`);
    if (start < 0) throw new Error(`no "// #region ${region}" in ${file}`);
    let depth = 0;
    let end = start + 1;
    for (; end < lines.length; end++) {
      const t = lines[end].trim();
      if (t.startsWith('// #region ')) depth++;
      else if (t === '// #endregion') {
        if (depth === 0) break;
        depth--;
      }
    }
    if (end === lines.length) throw new Error(`"// #region ${region}" in ${file} has no "// #endregion"`);
    picked = lines.slice(start + 1, end);
  } else picked = lines;
  picked = picked.filter((l) => !/^\s*\/\/ #(end)?region\b/.test(l));
  while (picked.length > 0 && picked[0].trim() === '') picked.shift();
  while (picked.length > 0 && picked[picked.length - 1].trim() === '') picked.pop();
  const indent = Math.min(...picked.filter((l) => l.trim() !== '').map((l) => l.match(/^ */)[0].length));
  return picked.map((l) => l.slice(Number.isFinite(indent) ? indent : 0)).join('\n');
}

/** Checks (or with `write`, rewrites) every guide; returns the problems found and the files quoted. */
export function checkGuides({ write = false } = {}) {
  const problems = [];
  const quoted = new Set();
  for (const { name, path, shown } of GUIDES()) {
    if (PENDING.has(name)) continue;
    const lines = readFileSync(path, 'utf8').split('\n');
    let changed = false;
    for (let i = 0; i < lines.length; i++) {
      const fence = lines[i].match(/^```(\w*)\s*$/);
      if (!fence || fence[1] === '') continue;
      const lang = fence[1];
      let close = i + 1;
      while (close < lines.length && lines[close] !== '```') close++;
      const marker = (lines[i - 1] ?? '').trim();
      const where = `${shown}:${i + 1}`;
      const example = marker.match(EXAMPLE);
      if (example) {
        const file = join(EXAMPLES, example[1]);
        if (!existsSync(file)) {
          problems.push(`${where}: quotes docs/examples/${example[1]}, which does not exist`);
        } else {
          quoted.add(example[1]);
          let text;
          try {
            text = quote(file, example[2]);
          } catch (err) {
            problems.push(`${where}: ${err.message}`);
            i = close;
            continue;
          }
          if (SHELL.has(lang)) text = text.replace(/^\/\/ ?/gm, '');
          const body = lines.slice(i + 1, close).join('\n');
          if (body !== text) {
            if (write) {
              lines.splice(i + 1, close - i - 1, ...text.split('\n'));
              changed = true;
              close = i + 1 + text.split('\n').length;
            } else {
              problems.push(`${where}: differs from docs/examples/${example[1]}${example[2] ? `#${example[2]}` : ''} (run node scripts/docs-examples.mjs --write)`);
            }
          }
        }
      } else if (CODE.has(lang) && !NOT_RUN.test(marker)) {
        problems.push(`${where}: a ${lang} block that quotes no example: put the code in docs/examples/ and add <!-- example: file#region --> before the fence, or <!-- not run: why --> if it is not Velox code`);
      }
      i = close;
    }
    if (changed) writeFileSync(path, lines.join('\n'));
  }
  return { problems, quoted };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const write = process.argv.includes('--write');
  const { problems } = checkGuides({ write });
  if (problems.length > 0) {
    console.error(`Guides and examples differ:\n- ${problems.join('\n- ')}`);
    process.exit(1);
  }
  console.log(write ? 'Guides updated from docs/examples/.' : 'Guides and docs/examples/ agree.');
}

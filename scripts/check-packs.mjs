// Checks the tarballs every package under packages/ would publish. Runs in `pnpm test`.
//
// For each package that is not private, it builds the package from a clean dist/, packs it with
// `pnpm pack` into a temporary directory and reads the tarball itself:
//   - every entry of `files` in package.json exists, and every one is in the tarball;
//   - every source a source map or declaration map names is in the tarball (or inlined in the
//     map's `sourcesContent`), so debuggers and "go to definition" find it;
//   - every path `exports` points at (after publishConfig) is in the tarball, no `workspace:`
//     range is left in the packed package.json, and the README is there.
// Then, unless --no-install, it installs the tarballs into a new project outside the repository
// (as docs/getting-started.md tells a user to), type-checks a small TypeScript app against them
// with a plain NodeNext tsconfig, compiles it, and runs it with plain `node`: the app listens on
// a free port, requests itself and must print the answer.
//
// The pattern new packages follow: `"files": ["dist", "src", "README.md", "CHANGELOG.md"]`
// (dist's maps point at ../src), and a CHANGELOG.md that starts as the `# <name>` line changesets
// writes first.
//
// It also checks that, inside the repository, `node --conditions=built` runs JavaScript against
// the built workspace packages.
//
// Usage: node scripts/check-packs.mjs [--no-install] [package-dir…]
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, posix, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const install = !args.includes('--no-install');
const only = args.filter((a) => !a.startsWith('--'));

const problems = [];
const fail = (pkg, message) => problems.push(`${pkg}: ${message}`);

/** Reads a .tgz into a Map of path (without the leading `package/`) → Buffer. */
export function readTarball(file) {
  const data = gunzipSync(readFileSync(file));
  const entries = new Map();
  let offset = 0;
  while (offset + 512 <= data.length) {
    const header = data.subarray(offset, offset + 512);
    if (header.every((b) => b === 0)) break;
    const field = (start, length) => header.subarray(start, start + length).toString('utf8').replace(/\0.*$/s, '');
    const name = field(0, 100);
    const size = Number.parseInt(field(124, 12).trim() || '0', 8);
    const type = field(156, 1);
    const prefix = field(345, 155);
    const path = prefix ? `${prefix}/${name}` : name;
    offset += 512;
    if (type === '0' || type === '') entries.set(path.replace(/^package\//, ''), data.subarray(offset, offset + size));
    offset += Math.ceil(size / 512) * 512;
  }
  return entries;
}

function run(command, commandArgs, cwd) {
  return execFileSync(command, commandArgs, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

/** Every string leaf of an `exports` value. */
function targets(value) {
  if (typeof value === 'string') return [value];
  if (value && typeof value === 'object') return Object.values(value).flatMap(targets);
  return [];
}

function checkPackage(dir, out) {
  const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
  const name = manifest.name;
  if (manifest.private) return undefined;
  rmSync(join(dir, 'dist'), { recursive: true, force: true });
  run('pnpm', ['run', '--silent', 'build'], dir);

  const files = manifest.files ?? [];
  if (files.length === 0) fail(name, 'package.json has no "files" list');
  for (const entry of files) {
    if (/[*?[]/.test(entry)) continue;
    if (!existsSync(join(dir, entry))) fail(name, `"files" lists ${entry}, which does not exist (a CHANGELOG.md starts as "# ${name}")`);
  }

  const packed = JSON.parse(run('pnpm', ['pack', '--json', '--pack-destination', out], dir));
  const tarball = readTarball(packed.filename);
  const paths = [...tarball.keys()];

  for (const entry of files) {
    const clean = entry.replace(/\/$/, '');
    if (!paths.some((p) => p === clean || p.startsWith(`${clean}/`) || /[*?[]/.test(entry))) fail(name, `"files" lists ${entry}, but the tarball has nothing of it`);
  }
  if (!tarball.has('README.md')) fail(name, 'the tarball has no README.md');

  for (const path of paths.filter((p) => p.endsWith('.map'))) {
    let map;
    try {
      map = JSON.parse(tarball.get(path).toString('utf8'));
    } catch {
      fail(name, `${path} is not valid JSON`);
      continue;
    }
    const base = posix.join(posix.dirname(path), map.sourceRoot ?? '');
    (map.sources ?? []).forEach((source, i) => {
      if (typeof map.sourcesContent?.[i] === 'string') return;
      const target = posix.normalize(posix.join(base, source));
      if (!tarball.has(target)) fail(name, `${path} points at ${source} (${target}), which is not in the tarball`);
    });
  }

  const shipped = JSON.parse(tarball.get('package.json').toString('utf8'));
  for (const target of targets(shipped.exports)) {
    if (target.startsWith('./') && !tarball.has(posix.normalize(target))) fail(name, `exports points at ${target}, which is not in the tarball`);
  }
  for (const field of ['dependencies', 'peerDependencies', 'optionalDependencies']) {
    for (const [dep, range] of Object.entries(shipped[field] ?? {})) {
      if (String(range).startsWith('workspace:')) fail(name, `${field}.${dep} is still ${range} in the packed package.json`);
    }
  }
  if (JSON.stringify(shipped.exports ?? {}).includes('/src/')) fail(name, 'the packed exports point into src/: publishConfig.exports must point at dist/');
  return { name, file: packed.filename, count: paths.length };
}

/** Installs the tarballs into a project of its own and runs a TypeScript app against them with plain node. */
function tryTarballs(packs) {
  const project = mkdtempSync(join(tmpdir(), 'velox-tarballs-'));
  try {
    const rootManifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
    // The packages depend on one another (session on redis, all on core): each name resolves to
    // its tarball, as it would to the registry once they are published.
    const overrides = Object.fromEntries(packs.map((p) => [p.name, `file:${p.file}`]));
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'try-velox', private: true, type: 'module', pnpm: { overrides } }, null, 2));
    writeFileSync(
      join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, outDir: 'out', types: ['node'] },
        include: ['app.ts'],
      }),
    );
    const routerImport = packs.some((p) => p.name === '@velox/router');
    writeFileSync(
      join(project, 'app.ts'),
      [
        "import { Server } from '@velox/core';",
        routerImport ? "import { Router } from '@velox/router';" : '',
        '',
        'const app = new Server();',
        routerImport
          ? "const api = new Router();\napi.get('/hello/:name', (req, res) => res.json({ hello: req.params.name }));\napp.use('/api', api);"
          : "app.get('/api/hello/:name', (req, res) => res.json({ hello: req.params.name }));",
        "const { port } = await app.listen(0, '127.0.0.1');",
        "const answer = await (await fetch('http://127.0.0.1:' + port + '/api/hello/ada')).text();",
        'console.log(answer);',
        'await app.close();',
        '',
      ].join('\n'),
    );
    // What docs/getting-started.md tells a user to do with the tarballs (and Node's types, for tsc).
    run('pnpm', ['add', '--prefer-offline', ...packs.map((p) => p.file), `@types/node@${rootManifest.devDependencies['@types/node']}`], project);
    run(join(root, 'node_modules', '.bin', 'tsc'), ['-p', 'tsconfig.json'], project);
    const output = run(process.execPath, [join(project, 'out', 'app.js')], project).trim();
    if (output !== '{"hello":"ada"}') problems.push(`tarballs: the app printed ${JSON.stringify(output)} instead of {"hello":"ada"}`);
  } catch (err) {
    problems.push(`tarballs: installing, type-checking or running an app against them failed:\n${err.stderr || err.stdout || err.message}`);
  } finally {
    rmSync(project, { recursive: true, force: true });
  }
}

/**
 * Inside the repository, plain node runs JavaScript against the built workspace packages with
 * `--conditions=built` (docs/getting-started.md says so): load all three from docs/examples/
 * and serve one request.
 */
function tryBuiltCondition() {
  const script = [
    "import { Server } from '@velox/core';",
    "import { Router } from '@velox/router';",
    "import { validate } from '@velox/validate';",
    "import { fileURLToPath } from 'node:url';",
    "if (!fileURLToPath(import.meta.resolve('@velox/core')).includes('/dist/')) throw new Error('@velox/core did not resolve to dist/');",
    'const app = new Server();',
    'const api = new Router();',
    "api.get('/ok', (req, res) => res.send(typeof validate));",
    "app.use('/api', api);",
    "const { port } = await app.listen(0, '127.0.0.1');",
    "console.log(await (await fetch('http://127.0.0.1:' + port + '/api/ok')).text());",
    'await app.close();',
  ].join('\n');
  try {
    const output = run(process.execPath, ['--conditions=built', '--input-type=module', '-e', script], join(root, 'docs', 'examples')).trim();
    if (output !== 'function') problems.push(`node --conditions=built: printed ${JSON.stringify(output)} instead of "function"`);
  } catch (err) {
    problems.push(`node --conditions=built could not run the built workspace packages:\n${err.stderr || err.message}`);
  }
}

const dirs = only.length > 0 ? only.map((d) => resolve(d)) : readdirSync(join(root, 'packages')).map((d) => join(root, 'packages', d));
const out = mkdtempSync(join(tmpdir(), 'velox-packs-'));
const packs = [];
try {
  for (const dir of dirs) {
    if (!existsSync(join(dir, 'package.json'))) continue;
    try {
      const result = checkPackage(dir, out);
      if (result) packs.push(result);
    } catch (err) {
      problems.push(`${dir}: could not build or pack:\n${err.stderr || err.stdout || err.message}`);
    }
  }
  if (problems.length === 0 && only.length === 0) tryBuiltCondition();
  if (install && packs.length > 0 && problems.length === 0) tryTarballs(packs);
} finally {
  rmSync(out, { recursive: true, force: true });
}

if (problems.length > 0) {
  console.error(`Pack check failed:\n- ${problems.join('\n- ')}`);
  process.exit(1);
}
console.log(
  `Pack check: ${packs.map((p) => `${p.name} (${p.count} files)`).join(', ')}; node --conditions=built runs the built packages${install ? '; the tarballs install, type-check and run' : ''}`,
);

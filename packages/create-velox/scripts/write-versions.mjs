// Writes dist/versions.json, which create-velox reads at run time to put the versions of this
// release into the package.json of the apps it makes (never a `workspace:` range): the version
// of every published @velox package of the workspace, and the ranges of the third-party packages
// the templates use, taken from the workspace manifests the repository's own tests run with.
// Runs after `tsc` in this package's `build` script; its tests import workspaceVersions().
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const self = resolve(here, '..');
const packages = resolve(self, '..');
const root = resolve(packages, '..');
const read = (file) => JSON.parse(readFileSync(file, 'utf8'));

/** The range a workspace manifest (a path under the repository) gives `dep`. */
function rangeOf(dep, manifestPath) {
  const manifest = read(join(root, manifestPath));
  const range = manifest.devDependencies?.[dep] ?? manifest.dependencies?.[dep] ?? manifest.peerDependencies?.[dep];
  if (typeof range !== 'string' || range.startsWith('workspace:')) throw new Error(`write-versions: ${manifestPath} has no registry range for ${dep}`);
  return range;
}

/** The versions of this release, read from the workspace: what dist/versions.json holds. */
export function workspaceVersions() {
  const velox = {};
  for (const dir of readdirSync(packages).sort()) {
    let manifest;
    try {
      manifest = read(join(packages, dir, 'package.json'));
    } catch {
      continue;
    }
    if (manifest.private || !manifest.name?.startsWith('@velox/')) continue;
    velox[manifest.name] = manifest.version;
  }
  const thirdParty = {
    zod: rangeOf('zod', 'packages/validate/package.json'),
    ws: rangeOf('ws', 'packages/ws/package.json'),
    '@types/ws': rangeOf('@types/ws', 'packages/ws/package.json'),
    typescript: rangeOf('typescript', 'package.json'),
    '@types/node': rangeOf('@types/node', 'package.json'),
  };
  return { createVelox: read(join(self, 'package.json')).version, velox, thirdParty };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  mkdirSync(join(self, 'dist'), { recursive: true });
  writeFileSync(join(self, 'dist', 'versions.json'), `${JSON.stringify(workspaceVersions(), null, 2)}\n`);
}

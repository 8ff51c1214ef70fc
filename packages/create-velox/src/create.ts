/**
 * `createApp()`: checks what it is asked for, renders every file in memory, then writes them all
 * at once (src/write.ts).
 */
import { basename, resolve } from 'node:path';
import { choiceOf, type PackageName, packageChoices, withRequirements } from './choices.ts';
import { invalidArgument, invalidName, unknownPackage } from './errors.ts';
import { folderOf, nameProblem } from './name.ts';
import { appModule, serverModule } from './templates/app.ts';
import { dockerfile, dockerignore, gitignore, indexHtml, manifest, readme, tsconfig } from './templates/project.ts';
import { type AppSpec, type Language, type PackageManager, View } from './templates/spec.ts';
import { testModule } from './templates/test.ts';
import { type Versions, versions } from './versions.ts';
import { checkTarget, writeAll } from './write.ts';

/**
 * What `createApp()` makes.
 *
 * @example
 * ```ts
 * import { type CreateOptions, createApp } from 'create-velox';
 * const options: CreateOptions = { name: '@acme/orders', language: 'ts', packages: ['router', 'session'], cwd: '/srv/apps' };
 * await createApp(options); // writes /srv/apps/orders
 * ```
 */
export interface CreateOptions {
  /**
   * The app's name, an npm package name (`my-api`, `@acme/api`); the app goes to a folder of that
   * name (the part after the scope) in `cwd`. `'.'`: into `cwd` itself, named after it.
   */
  name: string;
  /** `'ts'` (default) or `'js'`. */
  language?: Language;
  /** Short names of `packageChoices` (`'cors'`, or `'@velox/cors'`); default none. What they require is added. */
  packages?: readonly string[];
  /** Where the app's folder is made; default `process.cwd()`. */
  cwd?: string;
  /** Whose commands the README shows (`npm install`, `pnpm start`…); default `'npm'`. */
  packageManager?: PackageManager;
}

/**
 * What `createApp()` made.
 *
 * @example
 * ```ts
 * import { type CreatedApp, createApp } from 'create-velox';
 * const app: CreatedApp = await createApp({ name: 'docs-api', packages: ['openapi'] });
 * app.added; // ['validate']
 * ```
 */
export interface CreatedApp {
  /** The app's name (its package.json `name`). */
  name: string;
  /** The folder it was written to, absolute. */
  dir: string;
  /** The language. */
  language: Language;
  /** The chosen packages with their requirements, in the order of `packageChoices`. */
  packages: PackageName[];
  /** The packages added because a chosen one requires them (openapi → validate). */
  added: PackageName[];
  /** The files written, relative to `dir`. */
  files: string[];
}

/** @internal The options checked and resolved, nothing written: throws a CreateVeloxError on bad input. */
export function resolveOptions(options: CreateOptions): { spec: AppSpec; dir: string; shown: string; added: PackageName[] } {
  const cwd = resolve(options.cwd ?? process.cwd());
  const here = options.name === '.';
  const name = here ? basename(cwd) : options.name;
  const problem = nameProblem(name);
  if (problem) {
    throw invalidName(
      here
        ? `The current folder's name, "${name}", cannot name an npm package (${problem}): give a name, such as my-api`
        : `"${name}" cannot name an npm package: ${problem}. Use lower-case letters, digits and -._ (such as my-api, or @scope/my-api)`,
    );
  }
  const language = options.language ?? 'ts';
  if (language !== 'ts' && language !== 'js') throw invalidArgument(`The language is 'ts' or 'js', not ${JSON.stringify(language)}`);

  const names: PackageName[] = [];
  const unknown: string[] = [];
  for (const raw of options.packages ?? []) {
    const choice = choiceOf(raw);
    if (choice) names.push(choice.name);
    else unknown.push(raw);
  }
  if (unknown.length > 0) {
    throw unknownPackage(
      `Unknown package${unknown.length > 1 ? 's' : ''}: ${unknown.join(', ')}. The packages are: ${packageChoices.map((c) => c.name).join(', ')}`,
    );
  }
  const { packages, added } = withRequirements(names);
  const dir = here ? cwd : resolve(cwd, folderOf(name));
  const shown = here ? 'The current folder' : `The folder ${folderOf(name)}`;
  return { spec: { name, language, packages, packageManager: options.packageManager ?? 'npm' }, dir, shown, added };
}

/** @internal Every file of the app, path → content, rendered in memory, with these versions (default: this release's). */
export function renderFiles(spec: AppSpec, using: Versions = versions()): Map<string, string> {
  const v = new View(spec);
  const files = new Map<string, string>();
  files.set('package.json', `${JSON.stringify(manifest(v, using), null, 2)}\n`);
  files.set('README.md', readme(v));
  files.set('Dockerfile', dockerfile(v));
  files.set('.dockerignore', dockerignore());
  files.set('.gitignore', gitignore());
  if (v.ts) files.set('tsconfig.json', tsconfig());
  files.set(`src/app.${v.ext}`, appModule(v));
  files.set(`src/server.${v.ext}`, serverModule(v));
  files.set(`test/app.test.${v.ext}`, testModule(v));
  if (v.has('static')) files.set('public/index.html', indexHtml(v));
  return files;
}

/**
 * Makes a new Velox app: checks the name, the packages and the folder, renders every file, and
 * writes them all or none. Throws a `CreateVeloxError` (nothing written) on a bad name
 * (`VELOX_ERR_CREATE_INVALID_NAME`), a folder that exists and is not empty
 * (`VELOX_ERR_CREATE_TARGET_NOT_EMPTY`) or an unknown package (`VELOX_ERR_CREATE_UNKNOWN_PACKAGE`).
 *
 * @example
 * ```ts
 * import { createApp } from 'create-velox';
 * const app = await createApp({ name: 'my-api', language: 'js', packages: ['cors', 'compress'] });
 * console.log(`cd ${app.dir} && npm install && npm start`);
 * ```
 */
export async function createApp(options: CreateOptions): Promise<CreatedApp> {
  const { spec, dir, shown, added } = resolveOptions(options);
  await checkTarget(dir, shown);
  const files = renderFiles(spec);
  await writeAll(dir, shown, files);
  return { name: spec.name, dir, language: spec.language, packages: [...spec.packages], added, files: [...files.keys()] };
}

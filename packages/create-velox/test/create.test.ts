/**
 * create-velox as a user meets it: the workspace packages built and packed (as
 * scripts/check-packs.mjs does), create-velox installed from its own tarball, its command run
 * into temporary folders, then a JavaScript app and a TypeScript app installed from the tarballs
 * (the @velox packages through pnpm overrides to the tarball files, never the registry; third-party
 * packages with --prefer-offline, from the pnpm store), their own `test` scripts run, and their
 * `start` scripts started on PORT=0, asked for a route and stopped with SIGTERM. Bad input is run
 * through the same command: each case exits 2, says what to write, and writes nothing.
 */
import { existsSync, realpathSync } from 'node:fs';
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { alive, descendants, commandLine, spawnProcess, until } from '@velox/test-utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PackageName, packageChoices } from '../src/choices.ts';
import { buildAndPack, childEnv, exec, type Finished, must, newTempDir, type Packed, SELF, withWorkspaceDeps } from './helpers.ts';

const JS_PACKAGES: PackageName[] = ['cors', 'security-headers', 'compress', 'static'];
/** openapi requires validate: create-velox adds it. */
const TS_PACKAGES: PackageName[] = ['router', 'openapi'];

let work: string;
let packs: Packed[];
let bin: string;

beforeAll(async () => {
  work = await newTempDir('create-velox-test-');
  const out = join(work, 'packs');
  await mkdir(out);
  const dirs = await withWorkspaceDeps([...JS_PACKAGES, ...TS_PACKAGES, 'validate'].map((p) => `@velox/${p}`));
  packs = await buildAndPack([...dirs, SELF], out);
  // create-velox from its tarball, as `npm create velox` installs it, with its bin linked.
  const runner = join(work, 'runner');
  await mkdir(runner);
  await must('pnpm', ['add', '--prefer-offline', packed('create-velox').file], runner);
  bin = join(runner, 'node_modules', '.bin', 'create-velox');
}, 300_000);

afterAll(async () => {
  if (work) await rm(work, { recursive: true, force: true });
});

function packed(name: string): Packed {
  const pack = packs.find((p) => p.name === name);
  if (!pack) throw new Error(`${name} was not packed`);
  return pack;
}

/** A new empty folder under the test's temporary folder. */
async function folder(name: string): Promise<string> {
  const dir = join(work, 'cwd', `${name}-${Math.random().toString(36).slice(2, 8)}`);
  await mkdir(dir, { recursive: true });
  return dir;
}

/** Runs create-velox (stdin not a terminal). */
function create(cwd: string, ...args: string[]): Promise<Finished> {
  return exec(bin, args, cwd, childEnv(), 30_000);
}

/** Every path under `dir`, sorted (hidden ones included). */
async function tree(dir: string): Promise<string[]> {
  return (await readdir(dir, { recursive: true })).map(String).sort();
}

async function readJson(file: string): Promise<any> {
  return JSON.parse(await readFile(file, 'utf8'));
}

describe('create-velox --help and --version', () => {
  it('lists every flag and every package in --help, and the README documents every flag', async () => {
    const help = await create(await folder('help'), '--help');
    expect(help.code).toBe(0);
    for (const choice of packageChoices) expect(help.stdout).toMatch(new RegExp(`^  ${choice.name} +${escapeRegExp(choice.description)}$`, 'm'));
    const flags = [...new Set(help.stdout.match(/(?<=\s)--?[a-z]+\b/g))];
    expect(flags).toEqual(expect.arrayContaining(['--ts', '--typescript', '--js', '--javascript', '-p', '--packages', '-y', '--yes', '-h', '--help', '-v', '--version']));
    const readme = await readFile(join(SELF, 'README.md'), 'utf8');
    for (const flag of flags) expect(readme).toContain(`\`${flag}`);
  });

  it('prints its version', async () => {
    const version = await create(await folder('version'), '--version');
    expect(version.code).toBe(0);
    expect(version.stdout.trim()).toBe((await readJson(join(SELF, 'package.json'))).version);
  });
});

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

describe('bad input: exit code 2, a message that says what to write, nothing written', () => {
  /** Runs create-velox in a fresh folder; checks the exit code, the message and that the folder is as it was. */
  async function refused(args: string[], message: RegExp, prepare?: (cwd: string) => Promise<void>): Promise<void> {
    const cwd = await folder('bad');
    await prepare?.(cwd);
    const before = await tree(cwd);
    const result = await create(cwd, ...args);
    expect(result.stderr).toMatch(message);
    expect(result.stderr).toMatch(/^create-velox: /);
    expect(result.stdout).toBe('');
    expect(result.code).toBe(2);
    expect(await tree(cwd)).toEqual(before);
  }

  it('refuses a name npm would refuse', async () => {
    await refused(['My App', '--yes'], /"My App" cannot name an npm package: it may not contain capital letters\. Use lower-case letters/);
    await refused(['.hidden', '--yes'], /"\.hidden" cannot name an npm package: it starts with a dot/);
    await refused(['http', '--yes'], /"http" cannot name an npm package: http is the name of a Node.js built-in module/);
    await refused(['@acme', '--yes'], /a scoped name is written @scope\/name/);
  });

  it("refuses '.' in a folder whose name npm would refuse", async () => {
    const cwd = join(await folder('dot'), 'Not Valid');
    await mkdir(cwd);
    const result = await create(cwd, '.', '--yes');
    expect(result.stderr).toMatch(/The current folder's name, "Not Valid", cannot name an npm package \(it may not contain capital letters\): give a name/);
    expect(result.code).toBe(2);
    expect(await readdir(cwd)).toEqual([]);
  });

  it('refuses a folder that is not empty, and a file in the way', async () => {
    await refused(['taken', '--yes'], /The folder taken is not empty \(it holds keep\.txt\): pick another name, or empty the folder first/, async (cwd) => {
      await mkdir(join(cwd, 'taken'));
      await writeFile(join(cwd, 'taken', 'keep.txt'), 'mine');
    });
    await refused(['taken', '--yes'], /The folder taken exists and is not a folder: pick another name, or remove it/, async (cwd) => {
      await writeFile(join(cwd, 'taken'), 'a file');
    });
  });

  it('refuses unknown packages, listing the packages there are', async () => {
    const all = packageChoices.map((c) => c.name).join(', ');
    await refused(['my-api', '--yes', '--packages', 'cors,graphql,auth'], new RegExp(`Unknown packages: graphql, auth\\. The packages are: ${escapeRegExp(all)}$`, 'm'));
    await refused(['my-api', '--yes', '-p', 'express'], /Unknown package: express\. The packages are: router,/);
  });

  it('refuses contradicting, unknown, incomplete and extra arguments', async () => {
    await refused(['my-api', '--ts', '--js'], /--ts and --js both given: choose one/);
    await refused(['my-api', '--typescrpt'], /Unknown option '--typescrpt'\. See create-velox --help/);
    await refused(['my-api', '--packages'], /Option '-p, --packages <value>' argument missing\. See create-velox --help/);
    await refused(['my-api', 'other-api'], /One name only, got 2: my-api other-api\. Flags go after the name/);
  });

  it('asks for a name when nothing can be asked and --yes was not given', async () => {
    await refused(['--js'], /Give the app a name: create-velox my-api \(nothing can be asked: the input is not a terminal\), or --yes for velox-app/);
  });
});

describe('without questions', () => {
  it('takes the defaults with --yes: velox-app, TypeScript, @velox/core alone', async () => {
    const cwd = await folder('defaults');
    const result = await create(cwd, '--yes');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('Made velox-app in ./velox-app: TypeScript, @velox/core.');
    const manifest = await readJson(join(cwd, 'velox-app', 'package.json'));
    expect(manifest.name).toBe('velox-app');
    expect(Object.keys(manifest.dependencies)).toEqual(['@velox/core']);
    expect(Object.keys(manifest.devDependencies)).toEqual(['@types/node', 'typescript']);
    expect(await tree(join(cwd, 'velox-app'))).toEqual(
      ['.dockerignore', '.gitignore', 'Dockerfile', 'README.md', 'package.json', 'src', 'src/app.ts', 'src/server.ts', 'test', 'test/app.test.ts', 'tsconfig.json'].sort(),
    );
    // Nothing else in the working folder: no staging folder left behind.
    expect(await readdir(cwd)).toEqual(['velox-app']);
  });

  it('puts a scoped app in a folder named after its last part', async () => {
    const cwd = await folder('scoped');
    const result = await create(cwd, '@acme/orders-api', '--js', '-p', 'cors');
    expect(result.code).toBe(0);
    expect(await readdir(cwd)).toEqual(['orders-api']);
    expect((await readJson(join(cwd, 'orders-api', 'package.json'))).name).toBe('@acme/orders-api');
    expect(result.stdout).toContain('  cd orders-api\n');
  });

  it("writes into the current folder with '.', when it is empty but for .git, named after it", async () => {
    const cwd = join(await folder('dot'), 'dot-app');
    await mkdir(join(cwd, '.git'), { recursive: true });
    await writeFile(join(cwd, '.git', 'HEAD'), 'ref: refs/heads/main\n');
    const result = await create(cwd, '.', '--js');
    expect(result.code).toBe(0);
    expect((await readJson(join(cwd, 'package.json'))).name).toBe('dot-app');
    expect(await readFile(join(cwd, '.git', 'HEAD'), 'utf8')).toBe('ref: refs/heads/main\n');
    expect(result.stdout).toContain('Made dot-app in this folder');
    expect(result.stdout).not.toContain(' cd ');
  });

  it('shows the commands of the package manager that started it', async () => {
    const cwd = await folder('pnpm');
    const result = await exec(bin, ['pnpm-app', '--js'], cwd, childEnv({ npm_config_user_agent: 'pnpm/10.0.0 npm/? node/v22.0.0 linux x64' }));
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('  cd pnpm-app\n  pnpm install\n  pnpm start\n');
    expect(await readFile(join(cwd, 'pnpm-app', 'README.md'), 'utf8')).toContain('pnpm test');
  });
});

describe('with questions, on a terminal (script(1) gives it one)', () => {
  /** Starts create-velox on a pseudo-terminal; `answer(n, prompt, text)` types `text` once `prompt` has been shown n times. */
  function onTerminal(cwd: string) {
    const child = spawnProcess('script', ['-qec', `'${bin}'`, '/dev/null'], { cwd, env: childEnv() as Record<string, string>, stdin: 'pipe' });
    const shown = (prompt: string) => child.stdout().split(prompt).length - 1;
    return {
      child,
      async answer(times: number, prompt: string, text: string) {
        await until(() => shown(prompt) >= times, `"${prompt}" shown ${times} time(s); output: ${child.output()}`, 15_000);
        child.proc.stdin!.write(text);
      },
    };
  }

  it('asks again after a bad answer, then makes the app', async () => {
    const cwd = await folder('asked');
    const { child, answer } = onTerminal(cwd);
    await answer(1, 'App name:', 'Bad Name\r');
    await answer(2, 'App name:', 'asked-app\r');
    await answer(1, 'TypeScript or JavaScript?', 'python\r');
    await answer(2, 'TypeScript or JavaScript?', 'js\r');
    await answer(1, 'Numbers or names', '1, nope\r');
    await answer(2, 'Numbers or names', '1 cors\r');
    const exit = await child.exited;
    const out = child.stdout();
    expect(out).toContain('"Bad Name" cannot name an npm package');
    expect(out).toContain('Answer ts or js.');
    expect(out).toContain(`Unknown: nope. Give numbers from 1 to ${packageChoices.length}, or names:`);
    expect(out).toContain('Made asked-app in ./asked-app: JavaScript, @velox/core, @velox/router, @velox/cors.');
    expect(exit.code).toBe(0);
    const manifest = await readJson(join(cwd, 'asked-app', 'package.json'));
    expect(Object.keys(manifest.dependencies)).toEqual(['@velox/core', '@velox/cors', '@velox/router']);
    expect(existsSync(join(cwd, 'asked-app', 'src', 'app.js'))).toBe(true);
  });

  it('stops on Ctrl-C with exit code 130, writing nothing', async () => {
    const cwd = await folder('ctrl-c');
    const { child, answer } = onTerminal(cwd);
    await answer(1, 'App name:', 'half-app\r');
    await answer(1, 'TypeScript or JavaScript?', '\x03');
    const exit = await child.exited;
    expect(child.stdout()).toContain('create-velox: Cancelled: nothing was written.');
    expect(exit.code).toBe(130);
    expect(await readdir(cwd)).toEqual([]);
  });

  it('stops when the input ends (Ctrl-D) with exit code 130, writing nothing', async () => {
    const cwd = await folder('ctrl-d');
    const { child, answer } = onTerminal(cwd);
    await answer(1, 'App name:', '\x04');
    const exit = await child.exited;
    expect(child.stdout()).toContain('create-velox: Cancelled: nothing was written.');
    expect(exit.code).toBe(130);
    expect(await readdir(cwd)).toEqual([]);
  });
});

/** The version create-velox must write for a @velox package: this release's, as a caret range. */
function expectedRange(name: string): string {
  return `^${packed(name).version}`;
}

/** The packages in the order create-velox lists them. */
function inOrder(names: readonly PackageName[]): PackageName[] {
  return packageChoices.map((c) => c.name).filter((n) => names.includes(n));
}

describe.each([
  { language: 'js' as const, name: 'js-app', packages: JS_PACKAGES, made: inOrder(JS_PACKAGES), tests: 2 + JS_PACKAGES.length },
  // router shows in the paths only; validate and openapi have a test each.
  { language: 'ts' as const, name: 'ts-app', packages: TS_PACKAGES, made: inOrder([...TS_PACKAGES, 'validate']), tests: 2 + 2 },
])('a $language app from the tarballs ($packages)', ({ language, name, packages, made, tests }) => {
  let app: string;

  it('is written with the versions of this release, a Dockerfile on node:22-bookworm-slim and a README with the commands', async () => {
    const cwd = await folder(name);
    const result = await create(cwd, name, `--${language}`, '--packages', packages.join(','));
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    app = join(cwd, name);
    const lang = language === 'ts' ? 'TypeScript' : 'JavaScript';
    expect(result.stdout).toContain(`Made ${name} in ./${name}: ${lang}, ${['core', ...made].map((p) => `@velox/${p}`).join(', ')}.`);
    if (language === 'ts') expect(result.stdout).toContain('(validate was added: openapi needs it.)');
    expect(result.stdout).toContain(`Next:\n\n  cd ${name}\n  npm install\n  npm start\n`);

    const manifest = await readJson(join(app, 'package.json'));
    const velox = Object.fromEntries(['core', ...made].map((p) => [`@velox/${p}`, expectedRange(`@velox/${p}`)]));
    expect(manifest.dependencies).toEqual({ ...velox, ...(made.includes('validate') ? { zod: expect.stringMatching(/^\^4\./) } : {}) });
    expect(JSON.stringify(manifest)).not.toContain('workspace:');
    expect(manifest.scripts.start).toBeTypeOf('string');
    expect(manifest.scripts.test).toBeTypeOf('string');

    expect(await readFile(join(app, 'Dockerfile'), 'utf8')).toMatch(/^FROM node:22-bookworm-slim$/m);
    const readme = await readFile(join(app, 'README.md'), 'utf8');
    for (const command of ['npm install', 'npm start', 'npm test']) expect(readme).toContain(command);
  });

  it("installs from the tarballs and passes its own tests (its 'test' script)", async () => {
    // The @velox packages resolve to the tarballs, as they would to the registry once published.
    const manifest = await readJson(join(app, 'package.json'));
    manifest.pnpm = { overrides: Object.fromEntries(packs.filter((p) => p.name.startsWith('@velox/')).map((p) => [p.name, `file:${p.file}`])) };
    await writeFile(join(app, 'package.json'), JSON.stringify(manifest, null, 2));
    await must('pnpm', ['install', '--prefer-offline'], app);
    for (const p of made) expect(realpathSync(join(app, 'node_modules', '@velox', p))).toContain(`@velox+${p}@file+`);

    const test = await exec('pnpm', ['test'], app);
    // node:test's summary: `# pass 6` (tap, when its output is not a terminal) or `ℹ pass 6` (spec).
    expect(test.stdout).toMatch(new RegExp(`^(#|ℹ) pass ${tests}$`, 'm'));
    expect(test.stdout).toMatch(/^(#|ℹ) fail 0$/m);
    expect(test.code).toBe(0);
  }, 120_000);

  it("starts with its 'start' script on PORT=0, answers, and exits 0 on SIGTERM", async () => {
    const server = spawnProcess('pnpm', ['start'], { cwd: app, env: childEnv({ PORT: '0' }) as Record<string, string> });
    const below: number[] = [];
    try {
      const [, port] = await server.waitFor(new RegExp(`${name} listening on http://localhost:(\\d+)`), 60_000);
      const res = await fetch(`http://127.0.0.1:${port}/api/hello/ada`);
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ message: 'Hello, ada!' });

      below.push(...descendants(server.pid));
      // node itself, not the shell the package manager runs the script in.
      const node = below.find((pid) => {
        const args = commandLine(pid);
        return args?.[0]?.endsWith('node') === true && args.some((arg) => arg.endsWith('server.js'));
      });
      expect(node, `the server's node process among ${below.map((p) => commandLine(p)?.join(' ')).join('; ')}`).toBeDefined();
      // What Docker and Kubernetes do to a container's node process.
      process.kill(node!, 'SIGTERM');
      const exit = await server.exited;
      expect(server.output()).toContain('SIGTERM received');
      expect(exit).toEqual({ code: 0, signal: null });
      await until(() => below.every((pid) => !alive(pid)), 'every process of npm start to end');
    } finally {
      for (const pid of below) if (alive(pid)) process.kill(pid, 'SIGKILL');
    }
  }, 120_000);
});

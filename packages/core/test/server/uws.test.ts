import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { tempDir } from '@velox/test-utils';
import { describe, expect, it } from 'vitest';
import { ErrorCodes, loadUws, Server, uwsBuild, VeloxError } from '../../src/index.ts';
import { glibcVersion, loadFrom } from '../../src/uws.ts';
// @ts-expect-error: a plain .mjs script of the repository, without declarations
import { ensureNode } from '../../../../scripts/ensure-node.mjs';

const core = fileURLToPath(new URL('../..', import.meta.url));
const realUws = dirname(createRequire(`${core}/package.json`).resolve('@based/uws'));

/** A project folder with the given packages in node_modules: 'real' links @based/uws, 'imitation' is JavaScript. */
async function project(packages: Record<string, 'real' | 'imitation'>): Promise<NodeJS.Require> {
  const dir = await tempDir('velox-uws-');
  for (const [name, kind] of Object.entries(packages)) {
    const target = join(dir, 'node_modules', name);
    mkdirSync(join(target, '..'), { recursive: true });
    if (kind === 'real') {
      symlinkSync(realUws, target);
    } else {
      mkdirSync(target);
      writeFileSync(join(target, 'package.json'), JSON.stringify({ name, version: '20.30.0-imitation', main: 'index.js' }));
      // What a build with a JavaScript fallback does when its binary fails: say so, export look-alikes.
      writeFileSync(join(target, 'index.js'), "console.warn('binary not found, using the JavaScript fallback');\nmodule.exports = { App() { return {}; } };\n");
    }
  }
  // A require that sees only this folder's node_modules: pnpm's NODE_PATH would find the
  // workspace's packages too.
  const base = createRequire(join(dir, 'package.json'));
  const resolve = (name: string) => {
    const path = join(dir, 'node_modules', name);
    if (existsSync(path)) return path;
    throw Object.assign(new Error(`Cannot find module '${name}'`), { code: 'MODULE_NOT_FOUND' });
  };
  return Object.assign((name: string) => base(resolve(name)), { resolve }) as unknown as NodeJS.Require;
}

function childResult(node: string, script: string): Promise<{ code: number | null; signal: string | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(node, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: core, timeout: 30_000 }, (err, stdout, stderr) => {
      const e = err as (Error & { code?: number; signal?: string }) | null;
      resolve({ code: e ? (typeof e.code === 'number' ? e.code : 1) : 0, signal: e?.signal ?? null, stdout, stderr });
    });
  });
}

describe('loadUws', () => {
  it('loads a native build and says which', () => {
    const uws = loadUws();
    expect(Function.prototype.toString.call(uws.App)).toContain('[native code]');
    const build = uwsBuild();
    expect(['uWebSockets.js', '@based/uws']).toContain(build.package);
    expect(build.version).toMatch(/^\d+\.\d+\.\d+/);
    expect(loadUws()).toBe(uws);
  });

  it('tries an installed uWebSockets.js first', async () => {
    const require = await project({ 'uWebSockets.js': 'real', '@based/uws': 'real' });
    const { build } = loadFrom(require);
    expect(build.package).toBe('uWebSockets.js');
    expect(build.attempts).toEqual([]);
  });

  it('takes @based/uws when no uWebSockets.js is installed', async () => {
    const require = await project({ '@based/uws': 'real' });
    const { uws, build } = loadFrom(require);
    expect(build).toEqual({ package: '@based/uws', version: '6.0.1', attempts: [{ package: 'uWebSockets.js', reason: 'not installed' }] });
    expect(typeof uws.App).toBe('function');
  });

  it('passes over a JavaScript imitation, saying what it printed', async () => {
    const require = await project({ 'uWebSockets.js': 'imitation', '@based/uws': 'real' });
    const { build } = loadFrom(require);
    expect(build.package).toBe('@based/uws');
    expect(build.attempts[0]?.reason).toMatch(/JavaScript imitation loaded instead of a native binary \(binary not found/);
  });

  it('throws VELOX_ERR_UWS_LOAD listing every attempt, the Node, ABI, platform and glibc, and what to do', async () => {
    const require = await project({ 'uWebSockets.js': 'imitation' });
    let error: unknown;
    try {
      loadFrom(require);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(VeloxError);
    const err = error as VeloxError;
    expect(err.code).toBe('VELOX_ERR_UWS_LOAD');
    expect(err.code).toBe(ErrorCodes.UWS_FALLBACK); // the old name still matches
    expect(err.message).toContain('- uWebSockets.js: a JavaScript imitation loaded instead of a native binary');
    expect(err.message).toContain('- @based/uws: not installed');
    expect(err.message).toContain(`Node ${process.version} (ABI ${process.versions.modules}) on ${process.platform}-${process.arch}`);
    if (process.platform === 'linux') expect(err.message).toContain(`glibc ${glibcVersion() ?? 'not found'}`);
    expect(err.message).toContain('uNetworking/uWebSockets.js#v20.52.0');
  });
});

describe('Velox on Node 24', () => {
  it('refuses with a clear VELOX_ERR_UWS_LOAD where glibc is older than 2.38, and serves where it is not', { timeout: 180_000 }, async () => {
    const node = ensureNode(24) as string;
    const entry = JSON.stringify(fileURLToPath(new URL('../../src/index.ts', import.meta.url)));
    const script = `
      import { Server } from ${entry};
      const app = new Server();
      app.get('/', (req, res) => res.send('on ' + process.version));
      const { port } = await app.listen(0, '127.0.0.1');
      console.log(await (await fetch('http://127.0.0.1:' + port + '/')).text());
      await app.close();`;
    const result = await childResult(node, script);
    const glibc = glibcVersion();
    const [major = 0, minor = 0] = (glibc ?? '0.0').split('.').map(Number);
    if (major > 2 || (major === 2 && minor >= 38)) {
      expect(result.stderr).toBe('');
      expect(result.stdout).toMatch(/^on v24\./);
      return;
    }
    // No crash (an exit by signal), no fallback: the error, and an ordinary non-zero exit.
    expect(result.signal).toBeNull();
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain('VELOX_ERR_UWS_LOAD');
    expect(result.stderr).toMatch(/Node v24\.\d+\.\d+ \(ABI 137\) on linux-x64, glibc 2\.\d+/);
    expect(result.stderr).toContain("GLIBC_2.38' not found");
    expect(result.stderr).toContain(`needs glibc ≥ 2.38 and this system has ${glibc}`);
    expect(result.stderr).toContain('Run Node 22 here (Docker: node:22-bookworm)');
    expect(result.stderr).toContain('node:24-trixie');
    expect(result.stdout).toBe('');
  });
});

describe('new Server()', () => {
  it('loads uWS when constructed, so a failure is a start-up error', () => {
    expect(() => new Server()).not.toThrow();
  });
});

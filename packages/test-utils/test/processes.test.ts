import { randomUUID } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  alive,
  childrenOf,
  commandLine,
  descendants,
  exitCode,
  killLater,
  processesWithEnv,
  run,
  runServer,
  spawnProcess,
  tempDir,
  until,
} from '../src/index.ts';

const cwd = new URL('..', import.meta.url);

describe('run() and runServer()', () => {
  it('runs a script with tsx, in the given directory, with the extra environment, and collects its output', async () => {
    const child = run({ script: 'console.log("out " + process.env.EXTRA + " " + process.cwd()); console.error("err " + (1 + 1));' }, { EXTRA: 'yes' }, { cwd });
    expect(await child.exited).toEqual({ code: 0, signal: null });
    expect(child.stdout()).toBe(`out yes ${join(import.meta.dirname, '..')}\n`);
    expect(child.stderr()).toBe('err 2\n');
    expect(child.output()).toContain('err 2\n');
  });

  it('runs a file from its package directory with arguments and node flags', async () => {
    const dir = await tempDir();
    const file = join(dir, 'args.ts');
    await writeFile(file, 'console.log(JSON.stringify([process.argv.slice(2), typeof gc, process.cwd()]));');
    const child = run(file, {}, { args: ['a', 'b'], node: ['--expose-gc'], cwd });
    await child.exited;
    expect(JSON.parse(child.stdout())).toEqual([['a', 'b'], 'function', join(import.meta.dirname, '..')]);
  });

  it('refuses a script without a directory to run it in', () => {
    expect(() => run({ script: '' })).toThrow(/needs options.cwd/);
  });

  it('waitFor() rejects when the process exits before the output matches', async () => {
    const child = run({ script: 'console.log("bye")' }, {}, { cwd });
    await expect(child.waitFor(/never printed/)).rejects.toThrow(/process exited before \/never printed\/; stdout: bye/);
  });

  it('runServer() resolves with the port the program prints', async () => {
    const server = await runServer(
      { script: `import { createServer } from 'node:http'; const s = createServer((q, r) => r.end('hi')).listen(0, '127.0.0.1', () => console.log('PORT ' + s.address().port));` },
      {},
      { cwd },
    );
    expect(await (await fetch(server.url)).text()).toBe('hi');
    server.proc.kill('SIGTERM');
    expect(await server.exited).toEqual({ code: null, signal: 'SIGTERM' });
  });
});

describe('exitCode()', () => {
  it('resolves with the exit code of a process that ends by itself', async () => {
    expect(await exitCode(run({ script: 'process.exitCode = 3' }, {}, { cwd }), 20_000)).toBe(3);
  });

  it("kills a process still running after the time given and resolves with 'hung'", async () => {
    const child = run({ script: 'setInterval(() => {}, 1000); console.log("up")' }, {}, { cwd });
    await child.waitFor(/up/);
    expect(await exitCode(child, 200)).toBe('hung');
    expect(await child.exited).toEqual({ code: null, signal: 'SIGKILL' });
  });
});

describe('cleanup of processes', () => {
  let left = 0;
  let listed = 0;

  it('starts processes that outlive the test', async () => {
    const child = spawnProcess(process.execPath, ['-e', 'setInterval(() => {}, 1000); console.log("up")'], { cwd: import.meta.dirname });
    await child.waitFor(/up/);
    left = child.pid;
    const other = spawnProcess(process.execPath, ['-e', 'setInterval(() => {}, 1000); console.log("up")'], { cwd: import.meta.dirname });
    await other.waitFor(/up/);
    listed = other.pid;
    killLater([listed]);
    expect([alive(left), alive(listed)]).toEqual([true, true]);
  });

  it('killed them after that test', async () => {
    await until(() => !alive(left) && !alive(listed), 'both processes to be gone');
    expect(left).toBeGreaterThan(0);
  });
});

describe('process trees from /proc', () => {
  it('finds the children, the descendants, their command lines and the processes holding an environment token', async () => {
    const token = randomUUID();
    const grandchild = "require('node:child_process').spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' }); setInterval(() => {}, 1000);";
    const parent = spawnProcess(
      process.execPath,
      ['-e', `const c = require('node:child_process').spawn(process.execPath, ['-e', ${JSON.stringify(grandchild)}, 'marker'], { stdio: 'ignore' }); console.log('CHILD ' + c.pid);`],
      { cwd: import.meta.dirname, env: { TOKEN_UNDER_TEST: token } },
    );
    killLater(() => processesWithEnv('TOKEN_UNDER_TEST', token));
    const child = Number((await parent.waitFor(/CHILD (\d+)/))[1]);
    await until(() => descendants(parent.pid).length === 2, 'the grandchild to start');
    const [, grand] = descendants(parent.pid);
    expect(childrenOf(parent.pid)).toEqual([child]);
    expect(childrenOf(child)).toEqual([grand]);
    expect(commandLine(child)?.at(-1)).toBe('marker');
    expect(processesWithEnv('TOKEN_UNDER_TEST', token).sort()).toEqual([parent.pid, child, grand].sort());
    expect(commandLine(2 ** 22 + 1)).toBeUndefined();
  });
});

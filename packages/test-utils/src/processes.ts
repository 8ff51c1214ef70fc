/**
 * Child processes for tests that signal a server, let it crash, or check that it exits on its
 * own: every process started here is killed (SIGKILL, by its PID) when the test that started it
 * has finished, if it is still running. Process trees and environments are read from /proc.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { later } from './cleanup.ts';

/** How a process ended. */
export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** A process started by `spawnProcess()`, `run()` or `runServer()`. */
export interface Running {
  proc: ChildProcess;
  pid: number;
  /** What it wrote to stdout so far. */
  stdout: () => string;
  /** What it wrote to stderr so far. */
  stderr: () => string;
  /** stdout and stderr together, in the order they arrived. */
  output: () => string;
  /** Resolves when the output (stdout, then stderr) matches; rejects if the process exits first or after `ms` (default 15 s). */
  waitFor: (pattern: RegExp, ms?: number) => Promise<RegExpExecArray>;
  /** Resolves with how the process ended (once its last output is read). */
  exited: Promise<Exit>;
}

/** Where and how to start a process. */
export interface SpawnOptions {
  /** The working directory. */
  cwd: string | URL;
  /** Environment variables added to this process's. */
  env?: Record<string, string>;
  /** 'pipe' to write to the child's stdin (`proc.stdin`); default 'ignore'. */
  stdin?: 'ignore' | 'pipe';
}

/**
 * Starts `command` with `args`, collecting its output; killed after the test if still running.
 * @example
 * ```ts
 * const pnpm = spawnProcess('pnpm', ['start'], { cwd: root, env: { PORT: String(port) } });
 * await until(() => pnpm.output().includes('listening'), 'the server listens', 30_000);
 * ```
 */
export function spawnProcess(command: string, args: string[], options: SpawnOptions): Running {
  const cwd = options.cwd instanceof URL ? fileURLToPath(options.cwd) : options.cwd;
  const proc = spawn(command, args, { cwd, env: { ...process.env, ...options.env }, stdio: [options.stdin ?? 'ignore', 'pipe', 'pipe'] });
  later(() => {
    if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL');
  });
  let out = '';
  let err = '';
  let both = '';
  const waiters = new Set<() => void>();
  const notify = () => {
    for (const waiter of waiters) waiter();
  };
  proc.stdout!.on('data', (d) => {
    out += d;
    both += d;
    notify();
  });
  proc.stderr!.on('data', (d) => {
    err += d;
    both += d;
    notify();
  });
  let done = false;
  const exited = new Promise<Exit>((resolve) => {
    proc.once('exit', (code, signal) => {
      // Let the pipes drain so the last lines are read.
      setTimeout(() => {
        done = true;
        resolve({ code, signal });
        notify();
      }, 50);
    });
  });
  const waitFor = (pattern: RegExp, ms = 15_000) =>
    new Promise<RegExpExecArray>((resolve, reject) => {
      const timer = setTimeout(() => finish(new Error(`timed out waiting for ${pattern}; stdout: ${out}; stderr: ${err}`)), ms);
      const check = () => {
        const match = pattern.exec(out) ?? pattern.exec(err);
        if (match) return finish(undefined, match);
        if (done) finish(new Error(`process exited before ${pattern}; stdout: ${out}; stderr: ${err}`));
      };
      const finish = (error?: Error, match?: RegExpExecArray) => {
        clearTimeout(timer);
        waiters.delete(check);
        if (error) reject(error);
        else resolve(match!);
      };
      waiters.add(check);
      check();
    });
  return { proc, pid: proc.pid!, stdout: () => out, stderr: () => err, output: () => both, waitFor, exited };
}

/** What `run()` starts: a file, TypeScript or JavaScript (a URL, an absolute path, or one relative to the current directory), or `{ script }`, an ES module's source in JavaScript (what it imports may be TypeScript). */
export type Program = string | URL | { script: string };

/** Options of `run()` and `runServer()`. */
export interface RunOptions {
  /** The working directory; default: the package directory of the file (the nearest package.json above it). Required for `{ script }`. */
  cwd?: string | URL;
  /** Arguments after the file. */
  args?: string[];
  /** Node flags before `--import tsx`, e.g. `['--expose-gc']`. */
  node?: string[];
  /** 'pipe' to write to the child's stdin; default 'ignore'. */
  stdin?: 'ignore' | 'pipe';
}

/** The nearest directory at or above `dir` that holds a package.json. */
function packageDir(dir: string): string {
  for (let at = dir; ; at = dirname(at)) {
    if (existsSync(join(at, 'package.json'))) return at;
    if (dirname(at) === at) return dir;
  }
}

/**
 * Starts `node --import tsx <file>` (or `-e <script>` as an ES module) with extra environment
 * variables; killed after the test if still running.
 * @example
 * ```ts
 * const child = run(new URL('./fixtures/server.ts', import.meta.url), { TIMEOUT: '300' });
 * process.kill(child.pid, 'SIGTERM');
 * expect((await child.exited).code).toBe(0);
 *
 * const script = run({ script: `import { Server } from '@velox/core'; …` }, {}, { cwd: new URL('..', import.meta.url) });
 * ```
 */
export function run(program: Program, env: Record<string, string> = {}, options: RunOptions = {}): Running {
  const node = [...(options.node ?? []), '--import', 'tsx'];
  if (typeof program === 'object' && !(program instanceof URL)) {
    if (options.cwd === undefined) throw new TypeError('run({ script }) needs options.cwd: the directory its imports resolve from');
    const args = [...node, '--input-type=module', '-e', program.script, ...(options.args ?? [])];
    return spawnProcess(process.execPath, args, { cwd: options.cwd, env, stdin: options.stdin ?? 'ignore' });
  }
  const file = program instanceof URL ? fileURLToPath(program) : resolve(program);
  const cwd = options.cwd ?? packageDir(dirname(file));
  return spawnProcess(process.execPath, [...node, file, ...(options.args ?? [])], { cwd, env, stdin: options.stdin ?? 'ignore' });
}

/**
 * `run()` for a program that prints `PORT <n>` once it listens on 127.0.0.1: resolves then, with
 * the port and the base URL.
 * @example
 * ```ts
 * const server = await runServer(FIXTURE, { UNCAUGHT: 'log' });
 * await fetch(`${server.url}/boom`);
 * ```
 */
export async function runServer(
  program: Program,
  env: Record<string, string> = {},
  options: RunOptions = {},
): Promise<Running & { port: number; url: string }> {
  const running = run(program, env, options);
  const port = Number((await running.waitFor(/PORT (\d+)/))[1]);
  return { ...running, port, url: `http://127.0.0.1:${port}` };
}

/**
 * Resolves with the exit code once the process has ended; or, if it is still running after `ms`,
 * kills it (SIGKILL) and resolves with `'hung'`. For "the process exits on its own" tests.
 * @example
 * ```ts
 * const child = run({ script }, {}, { cwd });
 * expect(await exitCode(child, 20_000)).toBe(0);
 * ```
 */
export async function exitCode(running: Running, ms: number): Promise<number | null | 'hung'> {
  let timer: NodeJS.Timeout | undefined;
  const hung = new Promise<'hung'>((resolve) => {
    timer = setTimeout(() => resolve('hung'), ms);
  });
  const outcome = await Promise.race([running.exited, hung]);
  clearTimeout(timer);
  if (outcome !== 'hung') return outcome.code;
  running.proc.kill('SIGKILL');
  return 'hung';
}

/**
 * Whether a process with this PID exists.
 * @example
 * ```ts
 * await until(() => !alive(worker), 'the worker to exit');
 * ```
 */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * Kills these processes (SIGKILL, by PID) when the test has finished, those still running: the
 * PIDs, or a function that lists them then (say, every process holding a run's token).
 * @example
 * ```ts
 * killLater(workerPids);
 * killLater(() => processesWithEnv('TEST_RUN', token));
 * ```
 */
export function killLater(pids: number[] | (() => number[])): void {
  later(() => {
    for (const pid of typeof pids === 'function' ? pids() : pids) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  });
}

/** Every process as [pid, parent pid], read from /proc/<pid>/stat. */
function parents(): Map<number, number> {
  const out = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // pid (comm) state ppid …; comm may hold spaces and parentheses, so read after the last ')'.
      out.set(Number(entry), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // the process ended while we looked
    }
  }
  return out;
}

/**
 * The PIDs whose parent is `pid`, read from /proc.
 * @example
 * ```ts
 * expect(childrenOf(primary.pid)).toHaveLength(2);
 * ```
 */
export function childrenOf(pid: number): number[] {
  const out: number[] = [];
  for (const [child, parent] of parents()) if (parent === pid) out.push(child);
  return out;
}

/**
 * Every process below `pid` (children, their children…), read from /proc.
 * @example
 * ```ts
 * const below = descendants(pnpm.pid);
 * process.kill(pnpm.pid, 'SIGTERM');
 * await until(() => below.every((p) => !alive(p)), 'no process left behind');
 * ```
 */
export function descendants(pid: number): number[] {
  const all = parents();
  const out: number[] = [];
  const walk = (parent: number) => {
    for (const [child, ppid] of all) {
      if (ppid === parent) {
        out.push(child);
        walk(child);
      }
    }
  };
  walk(pid);
  return out;
}

/**
 * The command line of a process (its arguments), read from /proc; undefined once it has ended.
 * @example
 * ```ts
 * const workers = childrenOf(pid).filter((c) => commandLine(c)?.some((a) => a.endsWith('/worker.js')));
 * ```
 */
export function commandLine(pid: number): string[] | undefined {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'latin1').split('\0').slice(0, -1);
  } catch {
    return undefined;
  }
}

/**
 * The PIDs of processes whose environment holds `name=value` (children inherit it), read from
 * /proc: give a run a random token to find every process it started.
 * @example
 * ```ts
 * const child = run(FIXTURE, { TEST_RUN: token });
 * await until(() => processesWithEnv('TEST_RUN', token).length === 0, 'every process to exit');
 * ```
 */
export function processesWithEnv(name: string, value: string): number[] {
  const needle = `\0${name}=${value}\0`;
  const out: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (`\0${readFileSync(`/proc/${entry}/environ`, 'latin1')}`.includes(needle)) out.push(Number(entry));
    } catch {
      // gone, or not ours to read
    }
  }
  return out;
}

/**
 * Runs a fixture server in a process of its own, for tests that signal it or let it crash.
 * Every process started here is killed (by its PID, through its ChildProcess) after each test.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { connect } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterEach } from 'vitest';

const cwd = fileURLToPath(new URL('..', import.meta.url));
const started: ChildProcess[] = [];

afterEach(() => {
  for (const proc of started.splice(0)) if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL');
});

export interface Running {
  proc: ChildProcess;
  pid: number;
  stdout: () => string;
  stderr: () => string;
  /** Resolves when the output (stdout then stderr) matches; rejects if the process exits first or after `ms`. */
  waitFor: (pattern: RegExp, ms?: number) => Promise<RegExpExecArray>;
  /** Resolves with how the process ended. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Starts `node --import tsx <file>` (a path relative to packages/core) with extra environment. */
export function run(file: string, env: Record<string, string> = {}, args: string[] = []): Running {
  const proc = spawn(process.execPath, ['--import', 'tsx', file, ...args], {
    cwd,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  started.push(proc);
  let out = '';
  let err = '';
  const waiters = new Set<() => void>();
  const notify = () => {
    for (const waiter of waiters) waiter();
  };
  proc.stdout!.on('data', (d) => {
    out += d;
    notify();
  });
  proc.stderr!.on('data', (d) => {
    err += d;
    notify();
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    proc.once('exit', (code, signal) => {
      // Let the pipes drain so the last lines are read.
      setTimeout(() => {
        resolve({ code, signal });
        notify();
      }, 50);
    });
  });
  let done = false;
  exited.then(() => {
    done = true;
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
  return { proc, pid: proc.pid!, stdout: () => out, stderr: () => err, waitFor, exited };
}

/** Starts a fixture that prints `PORT <n>`, and resolves once it listens. */
export async function runServer(file: string, env: Record<string, string> = {}): Promise<Running & { port: number; url: string }> {
  const running = run(file, env);
  const port = Number((await running.waitFor(/PORT (\d+)/))[1]);
  return { ...running, port, url: `http://127.0.0.1:${port}` };
}

/** Whether a TCP connection to the port is accepted. */
export function accepts(port: number, host = '127.0.0.1'): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, host);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** Polls `check` until it returns true, or fails after `ms`. */
export async function until(check: () => boolean | Promise<boolean>, what: string, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

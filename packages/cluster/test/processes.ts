/**
 * Runs a fixture in a process of its own, for tests that signal it or let it crash.
 * Every process started here is killed (by its PID, through its ChildProcess) after each test.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
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

/** Whether a process with this PID exists. */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The worker processes (children running the cluster's worker program) of `pid`, read from /proc. */
export function workersOf(pid: number): number[] {
  return childrenOf(pid).filter((child) => {
    try {
      return /[/\\]worker\.(ts|js)\0/.test(readFileSync(`/proc/${child}/cmdline`, 'latin1'));
    } catch {
      return false;
    }
  });
}

/** The PIDs of processes whose environment holds `name=value` (children inherit it), read from /proc. */
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

/** The PIDs whose parent is `pid`, read from /proc. */
export function childrenOf(pid: number): number[] {
  const out: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // pid (comm) state ppid …; comm may hold spaces and parentheses, so read after the last ')'.
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === pid) out.push(Number(entry));
    } catch {
      // the process ended while we looked
    }
  }
  return out;
}

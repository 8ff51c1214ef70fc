// Child processes of a benchmark run: the servers and the load generators. Every child started
// here is tracked, so that an interrupted run (Ctrl-C) kills what it started and nothing else.
//
// spawnPinned() and runPinned() are for suites that bring their own load generator (a
// scenario's `load.measure`): they run a command pinned to the CPU the runner hands over.

import { spawn } from 'node:child_process';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { processTree, startTime } from './proctree.mjs';
import { serverCommand } from './tools.mjs';

const BENCH_DIR = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const live = new Set();

/** Remembers a child process until it exits, for killAll(). */
export function track(child) {
  live.add(child);
  child.once('exit', () => live.delete(child));
  return child;
}

/** Kills every tracked child process and its descendants (SIGKILL), e.g. on Ctrl-C. */
export function killAll() {
  for (const child of live) {
    for (const pid of child.pid ? processTree(child.pid) : []) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  }
}

/**
 * Spawns `command` pinned to CPU `cpu` with taskset (`cpu` null or undefined: not pinned, for
 * scenarios with `pin: false`). taskset execs the command, so the child's pid is the
 * command's. The child is tracked: an interrupted run kills it.
 *
 * @example
 *   const child = spawnPinned(cpu, process.execPath, ['load/ws-client.mjs', String(port)]);
 * @param {number | null | undefined} cpu
 * @param {string} command
 * @param {string[]} [args]
 * @param {import('node:child_process').SpawnOptions} [options]
 * @returns {import('node:child_process').ChildProcess}
 */
export function spawnPinned(cpu, command, args = [], options = {}) {
  const child = Number.isInteger(cpu)
    ? spawn('taskset', ['-c', String(cpu), command, ...args], { stdio: ['ignore', 'pipe', 'pipe'], ...options })
    : spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], ...options });
  return track(child);
}

/**
 * Runs a command pinned to `cpu` (see spawnPinned) until it exits, and resolves to its output.
 * Rejects when it exits with a non-zero status or outlives `timeoutMs` (then it is killed).
 * `json` is the last non-empty stdout line parsed as JSON, or undefined when it is not JSON:
 * a load generator can print its figures that way.
 *
 * @example
 *   // in a scenario's load: { measure: async ({ port, seconds, cpu }) => ... }
 *   const { json } = await runPinned(cpu, process.execPath, ['load/ws-client.mjs', String(port), String(seconds)]);
 *   return { rps: json.messagesPerSecond, p99Ms: json.p99Ms };
 * @param {number | null | undefined} cpu
 * @param {string} command
 * @param {string[]} [args]
 * @param {{ timeoutMs?: number, env?: NodeJS.ProcessEnv, cwd?: string }} [options]
 * @returns {Promise<{ stdout: string, stderr: string, json: any }>}
 */
export function runPinned(cpu, command, args = [], { timeoutMs = 120_000, env = process.env, cwd = BENCH_DIR } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawnPinned(cpu, command, args, { env, cwd });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => {
      stdout += d;
    });
    child.stderr.on('data', (d) => {
      stderr = (stderr + d).slice(-8000);
    });
    const killer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('error', (err) => {
      clearTimeout(killer);
      reject(err);
    });
    child.once('exit', (code, signal) => {
      clearTimeout(killer);
      if (code !== 0) {
        const why = (stderr || stdout).trim().split('\n').slice(-3).join(' / ');
        reject(new Error(`${path.basename(command)} exited with ${signal ?? `code ${code}`}${why ? `: ${why}` : ''}`));
        return;
      }
      let json;
      try {
        json = JSON.parse(stdout.trim().split('\n').pop());
      } catch {
        json = undefined;
      }
      resolve({ stdout, stderr, json });
    });
  });
}

/**
 * Starts a server file: `node [nodeArgs] servers/<file> <name> [...args]` (the Bun binary
 * instead of node for `runtime: 'bun'`), pinned to `cpu` (null: not pinned), from the
 * benchmarks folder. It resolves `ready` to the port once the server prints `PORT <n>`.
 *
 * @param {{ id?: string, file: string, nodeArgs?: string[], runtime?: 'node' | 'bun' }} server
 * @param {string} name  scenario or probe name, the server's first argument
 * @param {{ cpu?: number | null, args?: string[], env?: NodeJS.ProcessEnv, startTimeoutMs?: number }} [options]
 */
export function startServer(server, name, { cpu = null, args = [], env = process.env, startTimeoutMs = 30_000 } = {}) {
  const { command, args: commandArgs } = serverCommand(server, name, ...args);
  const child = spawnPinned(cpu, command, commandArgs, { cwd: BENCH_DIR, env });
  let stderr = '';
  child.stderr.on('data', (d) => {
    stderr = (stderr + d).slice(-4000);
  });
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  const lastErr = () => stderr.trim().split('\n').slice(-6).join(' / ');

  const ready = new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`no PORT line within ${startTimeoutMs / 1000} s. ${lastErr()}`)), startTimeoutMs);
    child.stdout.on('data', (d) => {
      out = (out + d).slice(-4000);
      const m = /^PORT (\d+)\s*$/m.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(Number(m[1]));
      }
    });
    child.once('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    exited.then(({ code, signal }) => {
      clearTimeout(timer);
      reject(new Error(`server exited before listening (${signal ?? `code ${code}`}): ${lastErr() || 'no output'}`));
    });
  });
  // Keep draining stdout so a chatty server never blocks on a full pipe.
  child.stdout.resume();
  return { child, ready, exited, lastErr, alive: () => child.exitCode === null && child.signalCode === null };
}

/**
 * Stops a server started by startServer: SIGTERM, then SIGKILL after 5 s; any descendant it
 * left behind (a cluster worker) is killed too.
 */
export async function stopServer(server) {
  const { child, exited } = server;
  const tree = [...(child.pid ? processTree(child.pid) : [])].map((pid) => ({ pid, started: startTime(pid) }));
  if (server.alive()) {
    child.kill('SIGTERM');
    const done = await Promise.race([exited.then(() => true), sleep(5000).then(() => false)]);
    if (!done) {
      child.kill('SIGKILL');
      await exited;
    }
  }
  // Descendants that outlived their parent were re-parented away from it; kill them by pid.
  for (const { pid, started } of tree) {
    if (pid === child.pid || startTime(pid) !== started) continue;
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
}

// CPU time and resident memory of a process and all its descendants, read from /proc. A server
// that forks (a cluster primary and its workers) is measured as a whole; a single-process
// server's tree is the process itself.

import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

const CLOCK_TICKS = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout?.trim()) || 100;

/** Parent pid of every process now running: Map<pid, ppid>. */
export function parentMap() {
  const parents = new Map();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      parents.set(Number(name), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // exited meanwhile
    }
  }
  return parents;
}

/** `root` and every process below it (children, grandchildren …) that is alive now. */
export function processTree(root, parents = parentMap()) {
  const children = new Map();
  for (const [pid, ppid] of parents) {
    if (!children.has(ppid)) children.set(ppid, []);
    children.get(ppid).push(pid);
  }
  const tree = new Set();
  if (!parents.has(root)) return tree;
  const queue = [root];
  while (queue.length) {
    const pid = queue.pop();
    if (tree.has(pid)) continue;
    tree.add(pid);
    for (const child of children.get(pid) ?? []) queue.push(child);
  }
  return tree;
}

/**
 * CPU time (user + system, microseconds) used so far by `root`'s tree. Each process counts with
 * the time of its children that have already exited (cutime + cstime), so a worker that ends
 * during a measurement is not lost. NaN when `root` is gone.
 */
export function treeCpuMicros(root, parents = parentMap()) {
  const tree = processTree(root, parents);
  if (tree.size === 0) return Number.NaN;
  let ticks = 0;
  for (const pid of tree) {
    try {
      const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ').pop().split(' ');
      ticks += Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14]);
    } catch {
      // exited meanwhile: its time is now in its parent's cutime/cstime
    }
  }
  return (ticks * 1e6) / CLOCK_TICKS;
}

/** When a process started (clock ticks since boot), to tell it from a later one with its pid. */
export function startTime(pid) {
  try {
    return Number(readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ').pop().split(' ')[19]);
  } catch {
    return Number.NaN;
  }
}

/** Resident memory of one process in MiB (VmRSS), NaN when it is gone. */
export function rssMiB(pid) {
  try {
    const kb = Number(/^VmRSS:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);
    return Number.isFinite(kb) ? kb / 1024 : Number.NaN;
  } catch {
    return Number.NaN;
  }
}

/**
 * Resident memory of `root`'s tree in MiB: the sum of VmRSS over the process and its
 * descendants (pages that forked processes share are counted once per process). NaN when
 * `root` is gone.
 */
export function treeRssMiB(root, parents = parentMap()) {
  const tree = processTree(root, parents);
  if (tree.size === 0) return Number.NaN;
  let total = 0;
  for (const pid of tree) {
    const one = rssMiB(pid);
    if (Number.isFinite(one)) total += one;
  }
  return total;
}

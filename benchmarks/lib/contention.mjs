// Other work on the machine during a measurement. On a shared 2-core box a
// compiler or test run elsewhere can halve a framework's figure, so the runner
// (1) waits for the machine to be idle before starting a server and
// (2) measures how much CPU other processes used while wrk was running, and
// repeats a round that was disturbed.

import { readdirSync, readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

const TICKS_PER_SECOND = 100; // USER_HZ; 100 on every Linux build in practice
const PF_KTHREAD = 0x00200000;

function readCpuTotals() {
  const line = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0];
  const v = line.trim().split(/\s+/).slice(1).map(Number);
  // user nice system idle iowait irq softirq steal guest guest_nice
  const idle = v[3] + (v[4] ?? 0);
  const total = v.slice(0, 8).reduce((a, b) => a + b, 0);
  return { busy: total - idle, total, steal: v[7] ?? 0 };
}

/**
 * CPU time (ticks) of every user-space process, children already reaped included:
 * Map<pid, { ticks, ppid }>.
 */
export function processTimes() {
  const out = new Map();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    let stat;
    try {
      stat = readFileSync(`/proc/${name}/stat`, 'utf8');
    } catch {
      continue; // exited meanwhile
    }
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(f[6]) & PF_KTHREAD) continue;
    out.set(Number(name), { ticks: Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14]), ppid: Number(f[1]) });
  }
  return out;
}

/**
 * CPU ticks each process not in `exclude` used between two processTimes() snapshots.
 * Processes born in between count in full. A process that ended in between is not in `after`,
 * and its whole lifetime's CPU time lands at once in its parent's reaped-children time; what it
 * had already used at `before` is taken off again, so that a shell reaping a long compile does
 * not look like a burst of load. (When the parent is excluded, nothing was added, so nothing is
 * taken off.)
 */
function foreignTicks(before, after, exclude) {
  const ticks = new Map();
  for (const [pid, a] of after) {
    if (exclude.has(pid)) continue;
    const d = a.ticks - (before.get(pid)?.ticks ?? 0);
    if (d > 0) ticks.set(pid, d);
  }
  for (const [pid, b] of before) {
    if (after.has(pid) || exclude.has(b.ppid) || !ticks.has(b.ppid)) continue;
    ticks.set(b.ppid, Math.max(0, ticks.get(b.ppid) - b.ticks));
  }
  return ticks;
}

/**
 * CPU seconds used between two processTimes() snapshots by processes not in
 * `exclude` (pids).
 */
export function foreignSeconds(before, after, exclude) {
  let ticks = 0;
  for (const t of foreignTicks(before, after, exclude).values()) ticks += t;
  return ticks / TICKS_PER_SECOND;
}

/**
 * The processes behind foreignSeconds(), busiest first: [{ pid, name, seconds }], for saying
 * what disturbed a slice.
 */
export function foreignProcesses(before, after, exclude, limit = 3) {
  const list = [];
  for (const [pid, ticks] of foreignTicks(before, after, exclude)) {
    if (ticks <= 0) continue;
    let name = '?';
    try {
      name = readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
    } catch {
      // exited meanwhile
    }
    list.push({ pid, name, seconds: ticks / TICKS_PER_SECOND });
  }
  return list.sort((a, b) => b.seconds - a.seconds).slice(0, limit);
}

/** Starts a window; `end()` returns the steal time (seconds, all CPUs) within it. */
export function stealWindow() {
  const a = readCpuTotals();
  return { end: () => (readCpuTotals().steal - a.steal) / TICKS_PER_SECOND };
}

/**
 * Waits until the whole machine uses less than `maxBusyCores` of CPU over a
 * `sampleMs` window, or until `maxWaitMs` has passed. Resolves to
 * { busyCores, waitedMs }.
 */
export async function waitForQuiet({ maxBusyCores = 0.15, sampleMs = 400, maxWaitMs = 60_000 } = {}) {
  const t0 = Date.now();
  for (;;) {
    const a = readCpuTotals();
    await sleep(sampleMs);
    const b = readCpuTotals();
    const busyCores = (b.busy - a.busy) / TICKS_PER_SECOND / (sampleMs / 1000);
    const waitedMs = Date.now() - t0;
    if (busyCores <= maxBusyCores || waitedMs >= maxWaitMs) return { busyCores, waitedMs };
    await sleep(1000);
  }
}

// Reading wrk's text output (run with --latency).

const UNIT_MS = { us: 0.001, ms: 1, s: 1000, m: 60000, h: 3600000 };

/** "612.00us" | "1.23ms" | "2.00s" -> milliseconds */
export function durationToMs(text) {
  const m = /^([\d.]+)(us|ms|s|m|h)$/.exec(text.trim());
  if (!m) return Number.NaN;
  return Number(m[1]) * UNIT_MS[m[2]];
}

/**
 * @returns {{ rps: number, requests: number, seconds: number, p50Ms: number,
 *   p75Ms: number, p90Ms: number, p99Ms: number, avgMs: number,
 *   socketErrors: {connect:number, read:number, write:number, timeout:number},
 *   non2xx: number, mbps: number }}
 * `mbps` is wrk's Transfer/sec (bytes read from the server, headers included) in MiB/s: wrk's
 * "MB" are 2^20 bytes.
 */
export function parseWrk(output) {
  const rps = /^Requests\/sec:\s+([\d.]+)/m.exec(output);
  const total = /^\s*(\d+) requests in ([\d.]+\w+),/m.exec(output);
  if (!rps || !total) throw new Error('could not find Requests/sec in wrk output');

  const pct = {};
  for (const m of output.matchAll(/^\s+(50|75|90|99)%\s+([\d.]+\w+)\s*$/gm)) {
    pct[m[1]] = durationToMs(m[2]);
  }
  if (pct['50'] === undefined || pct['99'] === undefined) {
    throw new Error('could not find the latency distribution in wrk output (was --latency passed?)');
  }
  const avg = /^\s+Latency\s+([\d.]+\w+)/m.exec(output);

  const sock = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(output);
  const non2xx = /Non-2xx or 3xx responses: (\d+)/.exec(output);

  const transfer = /^Transfer\/sec:\s+([\d.]+)([KMGTP]?)B\s*$/m.exec(output);
  const mbps = transfer ? (Number(transfer[1]) * 1024 ** 'BKMGTP'.indexOf(transfer[2] || 'B')) / 2 ** 20 : Number.NaN;

  return {
    rps: Number(rps[1]),
    requests: Number(total[1]),
    seconds: durationToMs(total[2]) / 1000,
    avgMs: avg ? durationToMs(avg[1]) : Number.NaN,
    p50Ms: pct['50'],
    p75Ms: pct['75'],
    p90Ms: pct['90'],
    p99Ms: pct['99'],
    socketErrors: sock
      ? { connect: +sock[1], read: +sock[2], write: +sock[3], timeout: +sock[4] }
      : { connect: 0, read: 0, write: 0, timeout: 0 },
    non2xx: non2xx ? Number(non2xx[1]) : 0,
    mbps,
  };
}

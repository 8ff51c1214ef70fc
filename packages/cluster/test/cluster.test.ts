/**
 * cluster(): every test runs test/fixtures/primary.ts in a process of its own (the primary),
 * which forks the workers; the tests talk to them over 127.0.0.1 and signal processes by PID.
 */
import { randomUUID } from 'node:crypto';
import { rm, writeFile } from 'node:fs/promises';
import { createServer, type Server as NetServer } from 'node:net';
import { join } from 'node:path';
import { Server } from '@velox/core';
import { alive, childrenOf, commandLine, freePort, killLater, later, processesWithEnv, run, tempDir, until } from '@velox/test-utils';
import { afterEach, describe, expect, it } from 'vitest';
import { ClusterErrorCodes, cluster } from '../src/index.ts';

const PRIMARY = new URL('./fixtures/primary.ts', import.meta.url);

/** Starts the primary and waits for `CLUSTER <port> <pids>`. */
async function startCluster(env: Record<string, string> = {}) {
  const primary = run(PRIMARY, env);
  const match = await primary.waitFor(/CLUSTER (\d+) ([\d,]+)/, 30_000);
  const port = Number(match[1]);
  const pids = match[2]!.split(',').map(Number);
  killLater(pids);
  return { primary, port, pids, url: `http://127.0.0.1:${port}` };
}

/** The worker processes (children running the cluster's worker program) of `pid`. */
function workersOf(pid: number): number[] {
  return childrenOf(pid).filter((child) => commandLine(child)?.some((arg) => /[/\\]worker\.(ts|js)$/.test(arg)));
}

/** GET on a new connection each time (so the kernel picks a worker anew). */
async function get(url: string): Promise<string> {
  const res = await fetch(url, { headers: { connection: 'close' } });
  return res.text();
}

/** Asks /pid on new connections until every PID in `want` answered (at most 300 tries). */
async function pidsAnswering(url: string, want: number[]): Promise<Set<number>> {
  const seen = new Set<number>();
  for (let i = 0; i < 300 && !want.every((pid) => seen.has(pid)); i++) seen.add(Number(await get(`${url}/pid`)));
  return seen;
}

describe('cluster()', () => {
  it('starts 2 workers on a port picked in the primary (port 0), and each of them answers', async () => {
    const { primary, url, pids } = await startCluster();
    expect(pids).toHaveLength(2);
    expect(workersOf(primary.pid).sort()).toEqual([...pids].sort());
    const seen = await pidsAnswering(url, pids);
    expect([...seen].sort()).toEqual([...pids].sort());
    const ids = new Set<string>();
    for (let i = 0; i < 300 && ids.size < 2; i++) ids.add(await get(`${url}/worker`));
    expect([...ids].sort()).toEqual(['1', '2']);
  });

  it('replaces a worker killed by its PID, while the other keeps serving', async () => {
    const { primary, url, pids } = await startCluster();
    const [victim, survivor] = pids as [number, number];
    process.kill(victim, 'SIGKILL');
    await primary.waitFor(new RegExp(`worker \\d \\(pid ${victim}\\) exited \\(signal SIGKILL\\); starting a new one in 100 ms`));
    const replacement = Number((await primary.waitFor(/worker \d \(pid (\d+)\) listening again/))[1]);
    expect(pids).not.toContain(replacement);
    expect(workersOf(primary.pid).sort()).toEqual([survivor, replacement].sort());
    const seen = await pidsAnswering(url, [survivor, replacement]);
    expect([...seen].sort()).toEqual([survivor, replacement].sort());
    killLater([replacement]);
  });

  it('drains a worker sent SIGTERM by its PID (its in-flight request finishes), then replaces it', async () => {
    const { primary, url } = await startCluster({ WORKERS: '1' });
    const answer = fetch(`${url}/slow/1000`).then(async (res) => ({ status: res.status, body: await res.text() }));
    const busy = Number((await primary.waitFor(/STARTED 1000 in (\d+)/))[1]);
    process.kill(busy, 'SIGTERM');
    expect(await answer).toEqual({ status: 200, body: `slept in ${busy}` });
    await primary.waitFor(new RegExp(`worker 1 \\(pid ${busy}\\) exited \\(code 0\\); starting a new one`));
    const replacement = Number((await primary.waitFor(/worker 1 \(pid (\d+)\) listening again/))[1]);
    killLater([replacement]);
    expect(await get(`${url}/pid`)).toBe(String(replacement));
  });

  it('drains a worker that throws an uncaught exception, logs it, and replaces it', async () => {
    const { primary, url } = await startCluster({ WORKERS: '1' });
    expect(await get(`${url}/crash`)).toBe('crashing');
    await primary.waitFor(/Uncaught exception:[\s\S]*worker crash/);
    await primary.waitFor(/worker 1 \(pid \d+\) exited \(code 1\); starting a new one in 100 ms/);
    const replacement = Number((await primary.waitFor(/worker 1 \(pid (\d+)\) listening again/))[1]);
    killLater([replacement]);
    expect(await get(`${url}/pid`)).toBe(String(replacement));
  });

  it('backs off between restarts when a worker keeps crashing, and recovers once it can start', async () => {
    const dir = await tempDir('velox-cluster-');
    const marker = join(dir, 'crash');
    const { primary, url, pids } = await startCluster({ WORKERS: '1', CRASH_ON_START: marker });
    await writeFile(marker, '');
    process.kill(pids[0]!, 'SIGKILL');
    await primary.waitFor(/failed to start again: cluster\(\): worker 1 \(pid \d+\) failed to start: cannot start: marker file present; starting a new one in 200 ms/);
    await primary.waitFor(/failed to start again: .*; starting a new one in 400 ms/);
    await rm(marker);
    const replacement = Number((await primary.waitFor(/worker 1 \(pid (\d+)\) listening again/))[1]);
    killLater([replacement]);
    expect(await get(`${url}/pid`)).toBe(String(replacement));
  });

  it('on SIGTERM to the primary: in-flight requests finish, every worker runs onClose and exits, the primary exits 0', async () => {
    const { primary, url, pids } = await startCluster();
    const answer = fetch(`${url}/slow/1500`).then(async (res) => ({ status: res.status, body: await res.text() }));
    const busy = Number((await primary.waitFor(/STARTED 1500 in (\d+)/))[1]);
    process.kill(primary.pid, 'SIGTERM');
    await primary.waitFor(/SIGTERM received: stopping 2 workers/);
    expect(await answer).toEqual({ status: 200, body: `slept in ${busy}` });
    expect(await primary.exited).toEqual({ code: 0, signal: null });
    for (const pid of pids) {
      expect(primary.stdout()).toContain(`ONCLOSE ${pid}`);
      expect(alive(pid)).toBe(false);
    }
  });

  it('on a second signal kills the workers at once and exits 130', async () => {
    const { primary, url, pids } = await startCluster();
    const answer = fetch(`${url}/slow/60000`).then(
      (res) => res.text(),
      (error: Error) => error,
    );
    await primary.waitFor(/STARTED 60000/);
    process.kill(primary.pid, 'SIGTERM');
    await primary.waitFor(/SIGTERM received/);
    process.kill(primary.pid, 'SIGINT');
    expect(await primary.exited).toEqual({ code: 130, signal: null });
    await until(() => pids.every((pid) => !alive(pid)), 'every worker is gone');
    expect(await answer).toBeInstanceOf(Error);
  });

  it('stops its workers when the primary dies', async () => {
    const token = randomUUID();
    const { primary, pids } = await startCluster({ CLUSTER_TEST_RUN: token });
    expect(processesWithEnv('CLUSTER_TEST_RUN', token)).toEqual(expect.arrayContaining([primary.pid, ...pids]));
    process.kill(primary.pid, 'SIGKILL');
    await until(() => processesWithEnv('CLUSTER_TEST_RUN', token).length === 0, 'every worker is gone');
  });

  it('close() stops every worker, and the primary then exits on its own', async () => {
    const primary = run(PRIMARY, { CLOSE_AFTER_START: '1' });
    const pids = (await primary.waitFor(/CLUSTER \d+ ([\d,]+)/))[1]!.split(',').map(Number);
    await primary.waitFor(/CLOSED/);
    for (const pid of pids) expect(alive(pid)).toBe(false);
    expect(await primary.exited).toEqual({ code: 0, signal: null });
  });
});

describe('cluster() refuses to start', () => {
  const netServers: NetServer[] = [];
  afterEach(async () => {
    await Promise.all(netServers.splice(0).map((s) => new Promise((r) => s.close(r))));
  });

  it('when another program holds the port: VELOX_ERR_CLUSTER_LISTEN_FAILED, saying it is in use, before any worker starts', async () => {
    const holder = createServer((socket) => {
      socket.on('error', () => {});
      socket.end('HTTP/1.1 200 OK\r\ncontent-length: 6\r\nconnection: close\r\n\r\nholder', () => socket.destroy());
    });
    netServers.push(holder);
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const port = (holder.address() as { port: number }).port;
    const primary = run(PRIMARY, { PORT: String(port) });
    await primary.waitFor(/FAILED/);
    expect(primary.stdout()).toContain(`FAILED ${ClusterErrorCodes.LISTEN_FAILED} cluster(): could not listen on 127.0.0.1, port ${port}: the port is already in use`);
    expect(await primary.exited).toEqual({ code: 1, signal: null });
    expect(await get(`http://127.0.0.1:${port}/pid`)).toBe('holder');
  });

  it('when a server sharing the port (reusePort) already listens there, instead of joining it', async () => {
    const port = await freePort();
    const other = new Server({ logger: false }).get('/pid', (req, res) => res.send('other'));
    await other.listen(port, '127.0.0.1', { reusePort: true });
    later(() => other.close());
    const primary = run(PRIMARY, { PORT: String(port) });
    await primary.waitFor(/FAILED/);
    expect(primary.stdout()).toContain(`FAILED ${ClusterErrorCodes.LISTEN_FAILED}`);
    expect(await primary.exited).toEqual({ code: 1, signal: null });
  });

  it.each([
    ['an entry whose default export is not a function', 'not-a-factory.ts', ClusterErrorCodes.INVALID_ENTRY, 'must export default a function'],
    ['an entry that returns a listening server', 'listening.ts', ClusterErrorCodes.INVALID_ENTRY, 'already listens'],
    ['an entry that throws', 'throws.ts', ClusterErrorCodes.WORKER_FAILED, 'the database is not reachable'],
    ['an entry file that does not exist', 'missing.ts', ClusterErrorCodes.INVALID_ENTRY, 'does not exist'],
  ])('for %s, with no worker left running', async (_what, entry, code, text) => {
    const token = randomUUID();
    const primary = run(PRIMARY, { ENTRY: `./${entry}`, CLUSTER_TEST_RUN: token });
    await primary.waitFor(/FAILED/);
    const line = primary.stdout().split('\n').find((l) => l.startsWith('FAILED'))!;
    expect(line).toContain(`FAILED ${code}`);
    expect(line).toContain(text);
    expect(await primary.exited).toEqual({ code: 1, signal: null });
    // Every process of this run (the primary and any worker it forked) carries the token.
    await until(() => processesWithEnv('CLUSTER_TEST_RUN', token).length === 0, 'no process of this run is left');
  });

  it('when a worker does not listen within startTimeout: VELOX_ERR_CLUSTER_WORKER_FAILED, and the worker is killed', async () => {
    const token = randomUUID();
    const primary = run(PRIMARY, { ENTRY: './hangs.ts', START_TIMEOUT: '1500', CLUSTER_TEST_RUN: token });
    await primary.waitFor(/FAILED/);
    expect(primary.stdout()).toMatch(new RegExp(`FAILED ${ClusterErrorCodes.WORKER_FAILED} cluster\\(\\): worker \\d \\(pid \\d+\\) did not listen within 1500 ms`));
    expect(await primary.exited).toEqual({ code: 1, signal: null });
    await until(() => processesWithEnv('CLUSTER_TEST_RUN', token).length === 0, 'no process of this run is left');
  });

  it.each([
    ['no entry', { port: 0 }],
    ['a port over 65535', { entry: 'x.js', port: 70000 }],
    ['no port', { entry: 'x.js' }],
    ['zero workers', { entry: 'x.js', port: 0, workers: 0 }],
    ['a negative timeout', { entry: 'x.js', port: 0, timeout: -5 }],
    ['an unknown crash policy', { entry: 'x.js', port: 0, uncaught: 'restart' }],
    ['a signal that cannot be caught', { entry: 'x.js', port: 0, signals: ['SIGKILL'] }],
    ['a backoff max below its initial delay', { entry: 'x.js', port: 0, backoff: { initial: 500, max: 100 } }],
  ])('for %s: VELOX_ERR_CLUSTER_INVALID_OPTION', async (_what, options) => {
    await expect(cluster(options as never)).rejects.toMatchObject({ code: ClusterErrorCodes.INVALID_OPTION });
  });
});

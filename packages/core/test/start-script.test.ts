/**
 * `pnpm start` (the root package.json script running the chat example, examples/chat/main.ts) must be stoppable by
 * signalling pnpm's own PID: the server it started has to shut down with it. The script execs
 * node directly (no tsx CLI parent, no shell left in between), so pnpm's forwarded signal
 * reaches the server.
 */
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { accepts, until } from './processes.ts';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const leftovers: number[] = [];
afterEach(() => {
  for (const pid of leftovers.splice(0)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
});

/** Every process below `pid`, read from /proc. */
function descendants(pid: number): number[] {
  const parents = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      parents.set(Number(entry), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // gone meanwhile
    }
  }
  const out: number[] = [];
  const walk = (parent: number) => {
    for (const [child, ppid] of parents) {
      if (ppid === parent) {
        out.push(child);
        walk(child);
      }
    }
  };
  walk(pid);
  return out;
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise((r) => probe.close(r));
  return port;
}

describe('pnpm start', () => {
  it.each(['SIGTERM', 'SIGINT'] as const)('stops the server, frees the port and leaves no process behind when pnpm gets %s', async (signal) => {
    const port = await freePort();
    const pnpm = spawn('pnpm', ['start'], { cwd: root, env: { ...process.env, PORT: String(port) }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    pnpm.stdout.on('data', (d) => {
      out += d;
    });
    pnpm.stderr.on('data', (d) => {
      out += d;
    });
    const exited = new Promise<number | null>((resolve) => pnpm.once('exit', (code) => resolve(code)));
    await until(() => out.includes(`listening on http://127.0.0.1:${port}`), 'the server listens', 30_000);
    const below = descendants(pnpm.pid!);
    leftovers.push(...below);
    expect(below.length).toBeGreaterThan(0);
    expect(await (await fetch(`http://127.0.0.1:${port}/`)).text()).toContain('<title>Velox chat</title>');

    process.kill(pnpm.pid!, signal);
    expect(await exited).toBe(0);
    await until(async () => !(await accepts(port)), 'the port is free');
    await until(() => below.every((pid) => !alive(pid)), 'no process started by pnpm start is left');
    expect(out).toContain(`${signal} received: closing`);
  });
});

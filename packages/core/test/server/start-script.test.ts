/**
 * `pnpm start` (the root package.json script running the chat example, examples/chat/main.ts) must be stoppable by
 * signalling pnpm's own PID: the server it started has to shut down with it. The script execs
 * node directly (no tsx CLI parent, no shell left in between), so pnpm's forwarded signal
 * reaches the server.
 */
import { fileURLToPath } from 'node:url';
import { accepts, alive, descendants, freePort, killLater, spawnProcess, until } from '@velox/test-utils';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../../..', import.meta.url));

describe('pnpm start', () => {
  // pnpm, tsx and the example's imports take 10 s or more to start on a machine busy with other
  // test runs: the 15 s default cut the test while the server was still starting (the wait for
  // "listening" already allows 30 s).
  it.each(['SIGTERM', 'SIGINT'] as const)('stops the server, frees the port and leaves no process behind when pnpm gets %s', async (signal) => {
    const port = await freePort();
    const pnpm = spawnProcess('pnpm', ['start'], { cwd: root, env: { PORT: String(port) } });
    // Runs before spawnProcess's own cleanup kills pnpm: a test cut short (or failing) must not
    // leave the server it started behind, orphaned and listening.
    killLater(() => descendants(pnpm.pid));
    await until(() => pnpm.output().includes(`listening on http://127.0.0.1:${port}`), 'the server listens', 30_000);
    const below = descendants(pnpm.pid);
    killLater(below);
    expect(below.length).toBeGreaterThan(0);
    expect(await (await fetch(`http://127.0.0.1:${port}/`)).text()).toContain('<title>Velox chat</title>');

    process.kill(pnpm.pid, signal);
    expect((await pnpm.exited).code).toBe(0);
    await until(async () => !(await accepts(port)), 'the port is free');
    await until(() => below.every((pid) => !alive(pid)), 'no process started by pnpm start is left');
    expect(pnpm.output()).toContain(`${signal} received: closing`);
  }, 60_000);
});

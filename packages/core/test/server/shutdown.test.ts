/**
 * closeOnSignals(): each test runs tests/fixtures/shutdown-server.ts in a process of its own and
 * signals that process by its PID.
 */
import { accepts, run, runServer, until } from '@velox/test-utils';
import { describe, expect, it } from 'vitest';
import { ErrorCodes, Server } from '../../src/index.ts';

const FIXTURE = new URL('../fixtures/shutdown-server.ts', import.meta.url);

/** Starts a request and resolves once the server has it in flight, with the answer to come. */
async function inflight(server: Awaited<ReturnType<typeof runServer>>, ms: number) {
  const answer = fetch(`${server.url}/slow/${ms}`).then(
    async (res) => ({ status: res.status, connection: res.headers.get('connection'), body: await res.text() }),
    (error: Error) => ({ error }),
  );
  await server.waitFor(new RegExp(`STARTED /slow/${ms}`));
  return { answer };
}

describe('closeOnSignals()', () => {
  it('lets an in-flight request finish on SIGTERM, refuses new connections, runs onClose hooks and exits 0', async () => {
    const server = await runServer(FIXTURE);
    const { answer } = await inflight(server, 1500);
    process.kill(server.pid, 'SIGTERM');
    await server.waitFor(/SIGTERM received: closing/);
    await until(async () => !(await accepts(server.port)), 'the port refuses connections');
    expect(await answer).toEqual({ status: 200, connection: 'close', body: 'slept 1500' });
    expect(await server.exited).toEqual({ code: 0, signal: null });
    expect(server.stdout()).toContain('ONCLOSE');
  });

  it('does the same on SIGINT', async () => {
    const server = await runServer(FIXTURE);
    const { answer } = await inflight(server, 800);
    process.kill(server.pid, 'SIGINT');
    expect(await answer).toMatchObject({ status: 200, body: 'slept 800' });
    expect(await server.exited).toEqual({ code: 0, signal: null });
  });

  it('exits at once with 128 + the signal number on a second signal', async () => {
    const server = await runServer(FIXTURE);
    const { answer } = await inflight(server, 60_000);
    process.kill(server.pid, 'SIGTERM');
    await server.waitFor(/SIGTERM received: closing/);
    process.kill(server.pid, 'SIGINT');
    expect(await server.exited).toEqual({ code: 130, signal: null });
    expect(server.stderr()).toContain('SIGINT received again: exiting now');
    expect(await answer).toHaveProperty('error');
    expect(server.stdout()).not.toContain('ONCLOSE');
  });

  it('cuts requests still running after the timeout, then exits 0', async () => {
    const server = await runServer(FIXTURE, { TIMEOUT: '300' });
    const { answer } = await inflight(server, 60_000);
    process.kill(server.pid, 'SIGTERM');
    expect(await server.exited).toEqual({ code: 0, signal: null });
    expect(await answer).toHaveProperty('error');
    expect(server.stdout()).toContain('ONCLOSE');
  });

  it('exits 1 when an onClose hook hangs past the timeout and its grace period', async () => {
    const server = await runServer(FIXTURE, { TIMEOUT: '0', HANG_ON_CLOSE: '1' });
    process.kill(server.pid, 'SIGTERM');
    expect(await server.exited).toEqual({ code: 1, signal: null });
    expect(server.stdout()).toContain('ONCLOSE');
    expect(server.stderr()).toContain('Shutdown did not finish within 5000 ms');
  });

  it('leaves the process to Node after the returned function uninstalls the handlers', async () => {
    const server = await runServer(FIXTURE, { UNINSTALL: '1' });
    process.kill(server.pid, 'SIGTERM');
    expect(await server.exited).toEqual({ code: null, signal: 'SIGTERM' });
    expect(server.stdout()).not.toContain('ONCLOSE');
  });
});

describe('closeOnSignals() crash policy', () => {
  it("'shutdown' (default): logs an uncaught exception, lets in-flight requests finish, exits 1", async () => {
    const server = await runServer(FIXTURE);
    const { answer } = await inflight(server, 1500);
    expect(await (await fetch(`${server.url}/throw`)).text()).toBe('will throw');
    await server.waitFor(/Uncaught exception/);
    expect(await answer).toEqual({ status: 200, connection: 'close', body: 'slept 1500' });
    expect(await server.exited).toEqual({ code: 1, signal: null });
    expect(server.stderr()).toContain('boom from a timer');
    expect(server.stdout()).toContain('ONCLOSE');
  });

  it("'shutdown' (default): logs an unhandled rejection, lets in-flight requests finish, exits 1", async () => {
    const server = await runServer(FIXTURE);
    const { answer } = await inflight(server, 1500);
    expect(await (await fetch(`${server.url}/reject`)).text()).toBe('will reject');
    await server.waitFor(/Unhandled promise rejection/);
    expect(await answer).toMatchObject({ status: 200, body: 'slept 1500' });
    expect(await server.exited).toEqual({ code: 1, signal: null });
    expect(server.stderr()).toContain('nobody handles this rejection');
  });

  it("'exit': logs and exits 1 at once, without waiting for in-flight requests", async () => {
    const server = await runServer(FIXTURE, { UNCAUGHT: 'exit' });
    const { answer } = await inflight(server, 60_000);
    await fetch(`${server.url}/throw`);
    expect(await server.exited).toEqual({ code: 1, signal: null });
    expect(server.stderr()).toContain('boom from a timer');
    expect(await answer).toHaveProperty('error');
    expect(server.stdout()).not.toContain('ONCLOSE');
  });

  it("'log': logs and keeps serving; a signal still exits 0", async () => {
    const server = await runServer(FIXTURE, { UNCAUGHT: 'log' });
    await fetch(`${server.url}/throw`);
    await fetch(`${server.url}/reject`);
    await server.waitFor(/Uncaught exception[\s\S]*boom from a timer/);
    await server.waitFor(/Unhandled promise rejection[\s\S]*nobody handles/);
    expect(await (await fetch(`${server.url}/ping`)).text()).toBe('pong');
    process.kill(server.pid, 'SIGTERM');
    expect(await server.exited).toEqual({ code: 0, signal: null });
  });

  it('a function: is called with the error and origin, and what it returns decides', async () => {
    const server = await runServer(FIXTURE, { UNCAUGHT: 'report' });
    await fetch(`${server.url}/reject`);
    await server.waitFor(/REPORTED unhandledRejection: nobody handles this rejection/);
    expect(await (await fetch(`${server.url}/ping`)).text()).toBe('pong'); // 'log' for rejections
    await fetch(`${server.url}/throw`);
    await server.waitFor(/REPORTED uncaughtException: boom from a timer/);
    expect(await server.exited).toEqual({ code: 1, signal: null }); // 'shutdown' for exceptions
    expect(server.stdout()).toContain('ONCLOSE');
  });

  it("false: installs no crash handler, so Node's default (print, exit 1 at once) applies", async () => {
    const server = await runServer(FIXTURE, { UNCAUGHT: 'false' });
    await fetch(`${server.url}/throw`);
    expect(await server.exited).toEqual({ code: 1, signal: null });
    expect(server.stderr()).toContain('boom from a timer');
    expect(server.stderr()).not.toContain('Uncaught exception:');
    expect(server.stdout()).not.toContain('ONCLOSE');
  });
});

describe('closeOnSignals() options', () => {
  const invalid = (options: unknown) => {
    const app = new Server({ logger: false });
    return () => app.closeOnSignals(options as never);
  };

  it.each([
    ['an empty signal list', { signals: [] }],
    ['an unknown signal', { signals: ['SIGNOPE'] }],
    ['SIGKILL, which cannot be caught', { signals: ['SIGKILL'] }],
    ['a negative timeout', { timeout: -1 }],
    ['a timeout that is not a number', { timeout: '10s' }],
    ['an unknown crash policy', { uncaught: 'restart' }],
  ])('throws VELOX_ERR_INVALID_OPTION for %s', (_what, options) => {
    expect(invalid(options)).toThrow(expect.objectContaining({ code: ErrorCodes.INVALID_OPTION }));
  });

  it('throws when installed twice on one server, and installs again after the uninstall', () => {
    const app = new Server({ logger: false });
    const before = process.listenerCount('SIGTERM');
    const crashBefore = process.listenerCount('uncaughtException');
    const uninstall = app.closeOnSignals();
    expect(process.listenerCount('SIGTERM')).toBe(before + 1);
    expect(() => app.closeOnSignals()).toThrow(/already installed/);
    uninstall();
    expect(process.listenerCount('SIGTERM')).toBe(before);
    expect(process.listenerCount('uncaughtException')).toBe(crashBefore);
    app.closeOnSignals({ signals: ['SIGUSR2'], uncaught: false })();
    expect(process.listenerCount('SIGUSR2')).toBe(0);
  });
});

describe('listen() in the Express form, unawaited', () => {
  it('stops the process with VELOX_ERR_LISTEN_FAILED when the port is in use, and never calls the callback', async () => {
    const holder = await runServer(FIXTURE);
    const second = run(new URL('../fixtures/express-listen.ts', import.meta.url), { PORT: String(holder.port) });
    expect(await second.exited).toMatchObject({ code: 1 });
    expect(second.stderr()).toContain(ErrorCodes.LISTEN_FAILED);
    expect(second.stderr()).toContain('already in use');
    expect(second.stdout()).not.toContain('LISTENING');
  });

  it('calls the callback with the port it listens on', async () => {
    const server = run(new URL('../fixtures/express-listen.ts', import.meta.url), { PORT: '0' });
    const port = Number((await server.waitFor(/LISTENING (\d+)/))[1]);
    expect(await (await fetch(`http://127.0.0.1:${port}/`)).text()).toBe('express form');
    process.kill(server.pid, 'SIGTERM');
    expect(await server.exited).toEqual({ code: 0, signal: null });
  });
});

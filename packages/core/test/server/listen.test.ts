import { writeFile } from 'node:fs/promises';
import { connect, createServer, type Server as NetServer } from 'node:net';
import { join } from 'node:path';
import { freePort, tempDir } from '@velox/test-utils';
import { afterEach, describe, expect, it } from 'vitest';
import { ErrorCodes, type ListenInfo, type Server } from '../../src/index.ts';
import { server } from '../helpers.ts';

const netServers: NetServer[] = [];
afterEach(async () => {
  await Promise.all(netServers.splice(0).map((s) => new Promise((r) => s.close(r))));
});

/** A node:net server holding a free port on 127.0.0.1. */
async function netHolder(): Promise<number> {
  const holder = createServer();
  netServers.push(holder);
  await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
  return (holder.address() as { port: number }).port;
}

/** Asks on a new connection each time which server answers `/`. */
async function whoAnswers(port: number): Promise<string> {
  const res = await fetch(`http://127.0.0.1:${port}/`, { headers: { connection: 'close' } });
  return res.text();
}

/** GET / over a Unix socket; resolves with the raw answer. */
function overUnix(path: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(path);
    let out = '';
    socket.on('data', (d) => {
      out += d;
    });
    socket.on('close', () => resolve(out));
    socket.on('error', reject);
    socket.write('GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
  });
}

function named(name: string): Server {
  const app = server();
  app.get('/', (req, res) => res.send(name));
  return app;
}

describe('listen() takes the port exclusively by default', () => {
  it('rejects with VELOX_ERR_LISTEN_FAILED, saying the port is in use, when another Velox server listens there', async () => {
    const first = named('first');
    const { port } = await first.listen(0, '127.0.0.1');
    const second = named('second');
    const err = await second.listen(port, '127.0.0.1').catch((e) => e);
    expect(err).toMatchObject({ code: ErrorCodes.LISTEN_FAILED, cause: { code: 'EADDRINUSE' } });
    expect(err.message).toMatch(new RegExp(`127\\.0\\.0\\.1, port ${port}: the port is already in use`));
    expect(second.listening).toBe(false);
    for (let i = 0; i < 5; i++) expect(await whoAnswers(port)).toBe('first');
  });

  it('rejects when another program (a node:net server) holds the port, with and without a host', async () => {
    const port = await netHolder();
    const app = named('app');
    await expect(app.listen(port, '127.0.0.1')).rejects.toMatchObject({ code: ErrorCodes.LISTEN_FAILED, message: expect.stringContaining('already in use') });
    await expect(app.listen(port)).rejects.toMatchObject({ code: ErrorCodes.LISTEN_FAILED, message: expect.stringContaining('already in use') });
  });

  it('rejects a port shared by reusePort listeners', async () => {
    const port = await freePort();
    await named('shared').listen(port, '127.0.0.1', { reusePort: true });
    await expect(named('exclusive').listen(port, '127.0.0.1')).rejects.toMatchObject({ code: ErrorCodes.LISTEN_FAILED });
  });

  it('can listen again after a failed attempt', async () => {
    const port = await netHolder();
    const app = named('retry');
    await expect(app.listen(port, '127.0.0.1')).rejects.toMatchObject({ code: ErrorCodes.LISTEN_FAILED });
    const { port: other } = await app.listen(0, '127.0.0.1');
    expect(await whoAnswers(other)).toBe('retry');
  });

  it('says why when the host is not an address of this machine', async () => {
    // 192.0.2.1 is TEST-NET-1 (RFC 5737): never configured here, and bind() sends no packet.
    const err = await named('x').listen(0, '192.0.2.1').catch((e) => e);
    expect(err).toMatchObject({ code: ErrorCodes.LISTEN_FAILED, message: expect.stringContaining('192.0.2.1 is not an address of this machine') });
  });
});

describe('listen() with { reusePort: true }', () => {
  it('shares the port between servers that both ask for it, and the kernel spreads connections over them', async () => {
    const port = await freePort();
    await named('a').listen(port, '127.0.0.1', { reusePort: true });
    await named('b').listen(port, '127.0.0.1', { reusePort: true });
    const seen = new Set<string>();
    for (let i = 0; i < 200 && seen.size < 2; i++) seen.add(await whoAnswers(port));
    expect([...seen].sort()).toEqual(['a', 'b']);
  });

  it('takes an options object without a host', async () => {
    const port = await freePort();
    const info = await named('a').listen(port, { reusePort: true });
    expect(info.port).toBe(port);
    await named('b').listen(port, { reusePort: true });
    expect(['a', 'b']).toContain(await whoAnswers(port));
  });

  it('still rejects a port held by a listener that does not share it', async () => {
    const { port } = await named('exclusive').listen(0, '127.0.0.1');
    const err = await named('shy').listen(port, '127.0.0.1', { reusePort: true }).catch((e) => e);
    expect(err).toMatchObject({ code: ErrorCodes.LISTEN_FAILED, message: expect.stringContaining('in use by a listener that does not share it') });
  });
});

describe('listen() in the Express form', () => {
  it('calls a callback given last with the listen info, and resolves with the same info', async () => {
    const app = named('cb');
    let called: ListenInfo | undefined;
    const info = await app.listen(0, (i) => {
      called = i;
    });
    expect(called).toEqual(info);
    expect(info.port).toBeGreaterThan(0);
    expect(await whoAnswers(info.port)).toBe('cb');
  });

  it('takes host and callback, and host, options and callback', async () => {
    const port = await freePort();
    const calls: number[] = [];
    await named('x').listen(port, '127.0.0.1', { reusePort: true }, (i) => calls.push(i.port));
    await named('y').listen(0, '127.0.0.1', (i) => calls.push(i.port));
    expect(calls[0]).toBe(port);
    expect(calls[1]).toBeGreaterThan(0);
  });

  it('never calls the callback when listening fails: the promise rejects', async () => {
    const port = await netHolder();
    let called = false;
    await expect(
      named('z').listen(port, '127.0.0.1', () => {
        called = true;
      }),
    ).rejects.toMatchObject({ code: ErrorCodes.LISTEN_FAILED });
    expect(called).toBe(false);
  });
});

describe('listen() arguments', () => {
  it.each([
    ['a port over 65535', [70000]],
    ['a negative port', [-1]],
    ['a fractional port', [80.5]],
    ['a number as host', [3000, 42]],
    ['an empty host', [3000, '']],
    ['an unknown option', [3000, '127.0.0.1', { exclusive: true }]],
    ['a reusePort that is not a boolean', [3000, '127.0.0.1', { reusePort: 'yes' }]],
    ['too many arguments', [3000, '127.0.0.1', {}, {}, () => {}]],
    ['a host with a Unix socket path', ['/tmp/x.sock', '127.0.0.1']],
  ])('rejects %s with VELOX_ERR_INVALID_OPTION saying what to write', async (_what, args) => {
    const app = named('bad');
    const err = await (app.listen as (...a: unknown[]) => Promise<ListenInfo>)(...args).catch((e) => e);
    expect(err).toMatchObject({ code: ErrorCodes.INVALID_OPTION });
    expect(err.message).toMatch(/listen/);
    expect(app.listening).toBe(false);
  });

  it('accepts the port as a string of digits', async () => {
    const info = await named('s').listen('0', '127.0.0.1');
    expect(await whoAnswers(info.port)).toBe('s');
  });
});

describe('listen() on a Unix socket path', () => {
  const dir = () => tempDir('velox-listen-');

  it('rejects a path another server accepts on, instead of taking it over', async () => {
    const path = join(await dir(), 'app.sock');
    await named('first').listen(path);
    const err = await named('second').listen(path).catch((e) => e);
    expect(err).toMatchObject({ code: ErrorCodes.LISTEN_FAILED, message: expect.stringContaining('socket path is in use') });
    expect(await overUnix(path)).toMatch(/first$/);
  });

  it('refuses to replace a file that is not a socket', async () => {
    const path = join(await dir(), 'notes.txt');
    await writeFile(path, 'keep me');
    await expect(named('x').listen(path)).rejects.toMatchObject({ code: ErrorCodes.LISTEN_FAILED, message: expect.stringContaining('not a socket') });
  });

  it('takes over a stale socket file that no server accepts on', async () => {
    const path = join(await dir(), 'stale.sock');
    const gone = named('gone');
    await gone.listen(path);
    await gone.close();
    await named('new').listen(path);
    expect(await overUnix(path)).toMatch(/new$/);
  });
});

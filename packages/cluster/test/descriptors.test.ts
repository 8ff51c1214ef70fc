// Why @velox/cluster shares a port (SO_REUSEPORT) between worker processes instead of one
// acceptor app handing connections to worker apps, which uWS v20.51 offers with
// `app.getDescriptor()` / `acceptor.addChildAppDescriptor(descriptor)` (and `adoptSocket(fd)`).
// These tests pin what that API is in this build, so that a uWS upgrade that changes it shows up
// here: the descriptor is the app's address in its own process's memory, good in that process
// (worker threads) and nowhere else. The README ("Why a shared port and not acceptor
// descriptors") draws the conclusion.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { loadUws } from '@velox/core';
import { describe, expect, it } from 'vitest';

const uws = loadUws();

/** The acceptor members of a uWS v20.51 app; its type declarations leave them out. */
interface Acceptor {
  getDescriptor(): number;
  addChildAppDescriptor(descriptor: number): unknown;
  removeChildAppDescriptor(descriptor: number): unknown;
}
/** A uWS app with its acceptor members. */
const app = () => uws.App() as ReturnType<typeof uws.App> & Acceptor;
/** Where a child process or a worker thread finds the same uWS build (core resolves it). */
const corePackage = fileURLToPath(new URL('../../core/package.json', import.meta.url));
const requireUws = `require('node:module').createRequire(${JSON.stringify(corePackage)})('@based/uws')`;

/** The 64 bits of a descriptor (a double holding a pointer's bits), as an address. */
function bitsOf(descriptor: number): bigint {
  return new BigUint64Array(new Float64Array([descriptor]).buffer)[0]!;
}

/** Listens on 127.0.0.1, port 0; resolves with the port and a function that stops listening. */
function listen(server: ReturnType<typeof uws.App>): Promise<{ port: number; stop: () => void }> {
  return new Promise((resolve) =>
    server.listen('127.0.0.1', 0, (token) => resolve({ port: uws.us_socket_local_port(token), stop: () => uws.us_listen_socket_close(token) })),
  );
}

describe('uWS v20.51 app descriptors', () => {
  it("are the address of the app in this process's memory (a pointer), not a file descriptor", () => {
    const one = app();
    const descriptor = one.getDescriptor();
    expect(typeof descriptor).toBe('number');
    const address = bitsOf(descriptor);
    const mapping = readFileSync('/proc/self/maps', 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => {
        const [range = '', perms = '', , , , name = ''] = line.split(/\s+/);
        const [from = '0', to = '0'] = range.split('-');
        return { from: BigInt(`0x${from}`), to: BigInt(`0x${to}`), perms, name };
      })
      .find((m) => address >= m.from && address < m.to);
    // A writable mapping of this process (the malloc heap), far above any file descriptor number.
    expect(mapping?.perms.startsWith('rw')).toBe(true);
    expect(address).toBeGreaterThan(1n << 20n);
    one.close();
  });

  it('hand connections from an acceptor app to an app in a worker thread of the same process', { timeout: 30_000 }, async () => {
    const worker = new Worker(
      `
      const { parentPort, threadId } = require('node:worker_threads');
      const uws = ${requireUws};
      const app = uws.App().get('/*', (res) => res.end('worker thread ' + threadId));
      parentPort.postMessage(app.getDescriptor());
      parentPort.on('message', () => { app.close(); parentPort.close(); });
      `,
      { eval: true },
    );
    const descriptor = await new Promise<number>((resolve) => worker.once('message', resolve));
    const acceptor = app();
    acceptor.addChildAppDescriptor(descriptor);
    const { port, stop } = await listen(acceptor);
    try {
      const answers = await Promise.all([1, 2, 3].map(async () => (await fetch(`http://127.0.0.1:${port}/`)).text()));
      expect(answers).toEqual([1, 2, 3].map(() => `worker thread ${worker.threadId}`));
    } finally {
      acceptor.removeChildAppDescriptor(descriptor);
      stop();
      acceptor.close();
      // The thread must close its app and end by itself: terminating a thread whose uWS app is
      // open aborts the whole process (uv_loop_close() with open handles), as the README says.
      const exited = new Promise((resolve) => worker.once('exit', resolve));
      worker.postMessage('close');
      expect(await exited).toBe(0);
    }
  });

  it('crash another process that adopts one (SIGSEGV when a connection arrives): they cannot cross a process boundary', { timeout: 30_000 }, async () => {
    // A worker app in this process; its descriptor goes to a child that makes it its child app.
    const worker = app();
    worker.get('/*', (res) => void res.end('never'));
    const descriptor = worker.getDescriptor();
    const script = `
      const uws = ${requireUws};
      const acceptor = uws.App();
      acceptor.addChildAppDescriptor(Number(process.argv[1]));
      acceptor.listen('127.0.0.1', 0, (token) => console.log('PORT ' + uws.us_socket_local_port(token)));
    `;
    // No core file from the crash.
    const child = spawn('sh', ['-c', 'ulimit -c 0; exec "$0" -e "$1" "$2"', process.execPath, script, String(descriptor)], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
        child.once('exit', (code, signal) => resolve({ code, signal })),
      );
      const port = await new Promise<number>((resolve, reject) => {
        let out = '';
        child.stdout.on('data', (d) => {
          out += d;
          const m = /PORT (\d+)/.exec(out);
          if (m) resolve(Number(m[1]));
        });
        child.once('exit', () => reject(new Error(`the child exited before listening: ${out}`)));
      });
      const client = connect(port, '127.0.0.1', () => client.write('GET / HTTP/1.1\r\nHost: x\r\n\r\n'));
      let answer = '';
      client.on('data', (d) => {
        answer += d;
      });
      client.on('error', () => {});
      expect(await exited).toEqual({ code: null, signal: 'SIGSEGV' });
      expect(answer).toBe('');
    } finally {
      child.kill('SIGKILL');
      worker.close();
    }
  });

  it('are not needed by adoptSocket(fd), which serves a socket node:net accepted and passed to another process', { timeout: 30_000 }, async () => {
    // The one way across processes: the primary accepts with node:net and sends the socket to a
    // child, which hands the file descriptor to uWS. It works, but through Node internals
    // (socket._handle.fd, readStop()), with the descriptor owned twice (by uWS and by Node's
    // socket object), and with every connection accepted by the primary's JavaScript.
    const script = `
      const uws = ${requireUws};
      const app = uws.App().get('/*', (res) => res.end('adopted by ' + process.pid));
      // Node's socket must not read what uWS should: its reading is stopped first.
      process.on('message', (_m, socket) => { socket._handle.readStop(); app.adoptSocket(socket._handle.fd); });
      process.send('ready');
    `;
    const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
    const { createServer } = await import('node:net');
    const primary = createServer({ pauseOnConnect: true }, (socket) => {
      if (!child.connected) return void socket.destroy();
      child.send('socket', socket, (err) => err && socket.destroy());
    });
    try {
      await new Promise((resolve) => child.once('message', resolve));
      await new Promise<void>((resolve) => primary.listen(0, '127.0.0.1', resolve));
      const port = (primary.address() as { port: number }).port;
      const answer = await (await fetch(`http://127.0.0.1:${port}/`)).text();
      expect(answer).toBe(`adopted by ${child.pid}`);
    } finally {
      primary.close();
      child.kill('SIGKILL');
    }
  });
});

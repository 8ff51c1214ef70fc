/**
 * Listening and closing: binding a port or a Unix socket (with the reason when it fails), TLS,
 * and the drain of in-flight requests on close.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { lstat } from 'node:fs/promises';
import { connect, createServer as createNetServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AppOptions, TemplatedApp, us_listen_socket } from '@based/uws';
import { ErrorCodes, invalidOption, VeloxError } from './errors.ts';
import type { Lifecycle } from './lifecycle.ts';
import { kCloseAfter } from './symbols.ts';
import type { Uws } from './uws.ts';

/** TLS settings: each of key, cert, ca and dhParams is a file path or the PEM text itself. */
export interface TlsOptions {
  key: string | Buffer;
  cert: string | Buffer;
  passphrase?: string;
  /** Diffie-Hellman parameters. */
  dhParams?: string | Buffer;
  /** Certificate authorities to trust for client certificates. */
  ca?: string | Buffer;
}

/** Options of {@link Server.close}. */
export interface CloseOptions {
  /** Milliseconds to let in-flight requests finish before their connections are cut. Default: 10000. */
  timeout?: number;
}

/**
 * Options of {@link Server.listen}.
 * @example
 * ```ts
 * await app.listen(3000, '0.0.0.0', { reusePort: true });
 * ```
 */
export interface ListenOptions {
  /**
   * Share the port with other listeners that ask for sharing too (SO_REUSEPORT; Linux spreads
   * connections among them). Without it the port is taken exclusively, and a port already in use
   * is an error. Has no effect with port 0 (a fresh port, shared with nobody). Default: `false`.
   */
  reusePort?: boolean;
}

/**
 * The Express-form callback of {@link Server.listen}: called once the server listens. Never
 * called with an error: a failure rejects the promise `listen()` returns.
 * @example
 * ```ts
 * const ready: ListenCallback = ({ port }) => console.log(`listening on ${port}`);
 * app.listen(3000, ready);
 * ```
 */
export type ListenCallback = (info: ListenInfo) => void;

/** What {@link Server.listen} resolves to. */
export interface ListenInfo {
  /** The port listened on (0 for a Unix socket). */
  port: number;
  /** The host listened on, or the Unix socket path. */
  host: string;
}


/** Binds the app as `target` says; rejects with `VELOX_ERR_LISTEN_FAILED` and the reason. */
export async function bind(uws: Uws, app: TemplatedApp, target: ListenTarget): Promise<{ socket: us_listen_socket; info: ListenInfo }> {
  if (target.path !== undefined) {
    // uWS unlinks whatever is at the path before binding: a live server's socket or any file.
    const refusal = await checkSocketPath(target.path);
    if (refusal) throw refusal;
  }
  const socket = await new Promise<us_listen_socket | false>((resolve) => {
    if (target.path !== undefined) app.listen_unix(resolve, target.path);
    else {
      // The native listen reads (host?, port, options, callback); its typings lack the host form.
      const options = target.reusePort ? LIBUS_LISTEN_DEFAULT : LIBUS_LISTEN_EXCLUSIVE_PORT;
      const listen = app.listen as unknown as (...args: unknown[]) => void;
      if (target.host) listen.call(app, target.host, target.port, options, resolve);
      else listen.call(app, target.port, options, resolve);
    }
  });
  if (!socket) throw await listenFailed(target);
  const info: ListenInfo =
    target.path !== undefined ? { port: 0, host: target.path } : { port: uws.us_socket_local_port(socket), host: target.host ?? '0.0.0.0' };
  return { socket, info };
}

/**
 * The drain of close(), once the listen socket is closed and the WebSockets ended: lets in-flight
 * requests (now answered with Connection: close) and the `pending()` work finish, up to `timeout` ms,
 * then cuts the responses still in progress and closes every connection.
 */
export async function drain(life: Lifecycle, app: TemplatedApp, pending: () => Promise<unknown> | undefined, timeout: number): Promise<void> {
  // uWS reads sockets only when the event loop polls: a request already sent on an open
  // connection may wait unread in the kernel, and closing the idle connections now would reset
  // it. After one poll it runs (with Connection: close) and counts as in flight.
  await afterPoll();
  const waits: Array<Promise<unknown>> = [];
  const drained = life.drained();
  if (drained) {
    for (const res of life.inflight()) res[kCloseAfter]();
    waits.push(drained);
  }
  const closing = pending();
  if (closing) waits.push(closing);
  if (waits.length > 0) {
    let timer: NodeJS.Timeout | undefined;
    const finished = await Promise.race([
      Promise.all(waits).then(() => true),
      new Promise<boolean>((resolve) => (timer = setTimeout(resolve, timeout, false))),
    ]);
    clearTimeout(timer);
    if (!finished) for (const res of life.inflight()) res.destroy();
    life.stopWaiting();
  }
  // Closes the sockets still open (idle keep-alive ones); present in the native binary, missing from its .d.ts.
  (app as TemplatedApp & { close(): void }).close();
}

/** uWS reads TLS material from files: PEM text given inline goes to a private temp file for the moment it takes. */
export function createTlsApp(uws: Uws, tls: TlsOptions): TemplatedApp {
  if (!tls.key || !tls.cert) throw invalidOption('tls needs key and cert (file paths or PEM text)');
  let dir: string | undefined;
  const file = (value: string | Buffer, name: string): string => {
    if (typeof value === 'string' && !value.includes('-----BEGIN')) return value;
    dir ??= mkdtempSync(join(tmpdir(), 'velox-tls-'));
    const path = join(dir, name);
    writeFileSync(path, value, { mode: 0o600 });
    return path;
  };
  try {
    const options: AppOptions = { key_file_name: file(tls.key, 'key.pem'), cert_file_name: file(tls.cert, 'cert.pem') };
    if (tls.passphrase) options.passphrase = tls.passphrase;
    if (tls.dhParams) options.dh_params_file_name = file(tls.dhParams, 'dh.pem');
    if (tls.ca) options.ca_file_name = file(tls.ca, 'ca.pem');
    try {
      return uws.SSLApp(options);
    } catch (cause) {
      throw invalidOption(
        `TLS setup failed (${(cause as Error).message}): key, cert${tls.dhParams ? ', dhParams' : ''}${tls.ca ? ', ca' : ''} must be readable PEM files or PEM text, and the passphrase must open the key`,
      );
    }
  } finally {
    if (dir) rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Resolves once the event loop has polled for I/O at least once after the call (uWS runs in
 * libuv's poll phase). One immediate is not enough when called from the poll phase itself (a
 * signal, a request handler): it runs in the same iteration, before any new poll.
 */
function afterPoll(): Promise<void> {
  return new Promise((resolve) => setImmediate(() => setImmediate(resolve)));
}

/** uSockets' listen options (uWS's `ListenOptions` enum, which its typings declare as a const-less enum). */
const LIBUS_LISTEN_DEFAULT = 0;
const LIBUS_LISTEN_EXCLUSIVE_PORT = 1;

export interface ListenTarget {
  port: number;
  host?: string;
  path?: string;
  reusePort: boolean;
}

/** Reads listen()'s arguments: port or path, then host?, options?, callback? in that order. */
export function parseListenArgs(portOrPath: unknown, rest: unknown[]): { target: ListenTarget; callback: ListenCallback | undefined } {
  const usage = 'write listen(port, host?, { reusePort }?, callback?), e.g. listen(3000, "0.0.0.0"), or listen("/path/to.sock")';
  let callback: ListenCallback | undefined;
  if (typeof rest[rest.length - 1] === 'function') callback = rest.pop() as ListenCallback;
  let host: string | undefined;
  let options: ListenOptions = {};
  if (rest.length > 0 && (typeof rest[0] === 'string' || rest[0] === undefined)) host = rest.shift() as string | undefined;
  if (rest.length > 0 && rest[0] !== undefined) {
    if (typeof rest[0] !== 'object' || rest[0] === null) throw invalidOption(`listen(): unexpected ${describeArg(rest[0])}; ${usage}`);
    options = rest.shift() as ListenOptions;
  } else if (rest.length > 0) rest.shift();
  if (rest.length > 0) throw invalidOption(`listen(): too many arguments; ${usage}`);
  if (host !== undefined && (host.length === 0 || /\s/.test(host))) throw invalidOption(`listen(): host must be an address or name such as "127.0.0.1" or "::", got ${JSON.stringify(host)}`);
  const unknown = Object.keys(options).filter((key) => key !== 'reusePort');
  if (unknown.length > 0) throw invalidOption(`listen(): unknown option ${unknown.join(', ')}; the options are { reusePort }`);
  if (options.reusePort !== undefined && typeof options.reusePort !== 'boolean') throw invalidOption('listen(): reusePort must be true or false');
  const reusePort = options.reusePort === true;
  if (typeof portOrPath === 'string' && portOrPath.length > 0 && !/^\d+$/.test(portOrPath)) {
    if (host !== undefined || reusePort) throw invalidOption(`listen("${portOrPath}") is a Unix socket path: it takes no host and no reusePort`);
    return { target: { port: 0, path: portOrPath, reusePort: false }, callback };
  }
  const port = typeof portOrPath === 'string' ? Number(portOrPath) : portOrPath;
  if (typeof port !== 'number' || !Number.isInteger(port) || port < 0 || port > 65535) {
    throw invalidOption(`listen(): the port must be a whole number from 0 to 65535 (0 picks a free one), got ${describeArg(portOrPath)}; ${usage}`);
  }
  return { target: host === undefined ? { port, reusePort } : { port, host, reusePort }, callback };
}

function describeArg(value: unknown): string {
  return typeof value === 'string' ? JSON.stringify(value) : typeof value === 'object' || typeof value === 'function' ? typeof value : String(value);
}

/** Refuses a Unix socket path that holds something other than a socket, or a socket a server accepts on. */
async function checkSocketPath(path: string): Promise<VeloxError | undefined> {
  let isSocket: boolean;
  try {
    isSocket = (await lstat(path)).isSocket();
  } catch (cause) {
    if ((cause as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    return new VeloxError(ErrorCodes.LISTEN_FAILED, `Could not listen on ${path}: ${(cause as Error).message}`, { cause });
  }
  if (!isSocket) return new VeloxError(ErrorCodes.LISTEN_FAILED, `Could not listen on ${path}: a file that is not a socket is there, and Velox does not replace it`);
  const live = await new Promise<boolean>((resolve) => {
    const probe = connect(path);
    probe.once('connect', () => {
      probe.destroy();
      resolve(true);
    });
    probe.once('error', () => resolve(false));
  });
  if (!live) return undefined; // a stale socket file left by a server that stopped: uWS replaces it
  const cause = Object.assign(new Error(`listen EADDRINUSE: address already in use ${path}`), { code: 'EADDRINUSE' });
  return new VeloxError(ErrorCodes.LISTEN_FAILED, `Could not listen on ${path}: the socket path is in use (another server accepts connections there)`, { cause });
}

/**
 * uWS only says that listening failed. Binding the same address with node:net gives the reason
 * (EADDRINUSE, EACCES, EADDRNOTAVAIL…), which becomes the message and the error's cause.
 */
async function listenFailed(target: ListenTarget): Promise<VeloxError> {
  const where = target.path ?? `${target.host ?? 'every address'}, port ${target.port}`;
  const cause = await new Promise<NodeJS.ErrnoException | undefined>((resolve) => {
    const probe = createNetServer();
    probe.once('error', (err: NodeJS.ErrnoException) => resolve(err));
    const address = target.path !== undefined ? { path: target.path } : { port: target.port, host: target.host, exclusive: true };
    probe.listen(address, () => probe.close(() => resolve(undefined)));
  });
  let why: string;
  switch (cause?.code) {
    case 'EADDRINUSE':
      why =
        target.path !== undefined
          ? 'the socket path is in use (another server listens there, or a stale socket file is left: remove it)'
          : target.reusePort
            ? 'the port is already in use by a listener that does not share it'
            : 'the port is already in use (by another server or program; stop it, choose another port, or share the port on purpose: both sides listen with { reusePort: true })';
      break;
    case 'EACCES':
    case 'EPERM':
      why = target.path !== undefined ? 'permission denied' : 'permission denied (ports below 1024 need privileges)';
      break;
    case 'EADDRNOTAVAIL':
      why = `${target.host} is not an address of this machine`;
      break;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      why = `the host name ${target.host} does not resolve`;
      break;
    default:
      why = cause ? (cause.message ?? String(cause)) : 'the address could not be bound';
  }
  return new VeloxError(ErrorCodes.LISTEN_FAILED, `Could not listen on ${where}: ${why}`, { cause });
}

/**
 * permessage-deflate: which uWS flags turn it on, and whether this process's uWebSockets.js
 * binary negotiates it at all. `@based/uws` (uWS v20.51) negotiates it on linux-x64, but a binary
 * built without zlib would accept the flags and silently send everything uncompressed. So a route that asks for compression has the
 * binary checked once per process, over a real socket, before `listen()` resolves.
 *
 * The only file of this package that uses the uWebSockets.js module itself: it takes the one
 * `@velox/core` loaded (`loadUws()`), which core has already checked is a native binary.
 */
import { connect } from 'node:net';
import { loadUws as coreUws } from '@velox/core';
import { WsErrorCodes, wsError } from './errors.ts';

/** The few members of uWebSockets.js the probe uses. */
interface UwsModule {
  App(): {
    ws(pattern: string, behavior: { compression: number }): unknown;
    listen(host: string, port: number, cb: (socket: unknown) => void): unknown;
    close(): void;
  };
  us_listen_socket_close(socket: unknown): void;
  us_socket_local_port(socket: unknown): number;
  SHARED_COMPRESSOR: number;
  SHARED_DECOMPRESSOR: number;
  DISABLED: number;
}

let uws: UwsModule | undefined;

function loadUws(): UwsModule {
  uws ??= coreUws() as unknown as UwsModule;
  return uws;
}

/** The uWS `compression` value for permessage-deflate with shared (zero per-socket memory) windows. */
export function sharedCompression(): number {
  const m = loadUws();
  return m.SHARED_COMPRESSOR | m.SHARED_DECOMPRESSOR;
}

/**
 * @internal Whether a uWS route with these compression flags answers a client offering
 * permessage-deflate with the extension: a throwaway app on 127.0.0.1, one raw upgrade request.
 */
export function negotiates(flags: number): Promise<boolean> {
  const m = loadUws();
  const app = m.App();
  app.ws('/*', { compression: flags });
  return new Promise<boolean>((resolve, reject) => {
    app.listen('127.0.0.1', 0, (listenSocket) => {
      if (!listenSocket) return reject(new Error('the compression check could not listen on 127.0.0.1'));
      let settled = false;
      const finish = (error: Error | undefined, value = false) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        socket.destroy();
        m.us_listen_socket_close(listenSocket);
        app.close();
        if (error) reject(error);
        else resolve(value);
      };
      const timer = setTimeout(() => finish(new Error('the compression check got no answer within 5 s')), 5000);
      const socket = connect(m.us_socket_local_port(listenSocket), '127.0.0.1');
      let head = '';
      socket.on('connect', () => {
        socket.write(
          'GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n' +
            'Sec-WebSocket-Key: dmVsb3gtY29tcHJlc3Npb24=\r\nSec-WebSocket-Version: 13\r\n' +
            'Sec-WebSocket-Extensions: permessage-deflate; client_max_window_bits\r\n\r\n',
        );
      });
      socket.on('data', (chunk: Buffer) => {
        head += chunk.toString('latin1');
        const end = head.indexOf('\r\n\r\n');
        if (end < 0) return;
        const lines = head.slice(0, end).split('\r\n');
        if (!lines[0]!.startsWith('HTTP/1.1 101')) return finish(new Error(`the compression check was answered "${lines[0]}"`));
        finish(undefined, lines.some((line) => /^sec-websocket-extensions:\s*permessage-deflate/i.test(line)));
      });
      socket.on('error', (err) => finish(err));
      socket.on('close', () => finish(new Error('the compression check connection closed before an answer')));
    });
  });
}

let verdict: Promise<void> | undefined;

/**
 * Resolves when this process's binary negotiates permessage-deflate; rejects with
 * `VELOX_ERR_WS_COMPRESSION_UNSUPPORTED`, naming the fix, when it does not. Checked once per process.
 */
export function requireCompression(): Promise<void> {
  verdict ??= negotiates(sharedCompression()).then(
    (ok) => {
      if (!ok) throw compressionUnsupported();
    },
    (cause: unknown) => {
      throw compressionUnsupported(cause);
    },
  );
  return verdict;
}

/** @internal The start-up error for a binary without permessage-deflate. */
export function compressionUnsupported(cause?: unknown): Error {
  const { platform, arch } = process;
  return wsError(
    WsErrorCodes.COMPRESSION_UNSUPPORTED,
    `compression: true, but the uWebSockets.js binary for ${platform}-${arch} (Node ABI ${process.versions.modules}) does not negotiate ` +
      'permessage-deflate (it was built without zlib), so messages would silently go out uncompressed. Install an official ' +
      'uWebSockets.js build and point every dependency at it, e.g. in pnpm-workspace.yaml: ' +
      '`overrides: { "uWebSockets.js": "github:uNetworking/uWebSockets.js#v20.52.0" }` (npm and yarn: "overrides" / ' +
      '"resolutions" in package.json); or set compression: false.' +
      (cause ? ` (The check itself failed: ${(cause as Error).message ?? cause}.)` : ''),
    cause,
  );
}

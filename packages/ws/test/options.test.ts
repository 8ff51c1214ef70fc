import { connect, start, until } from '@velox/test-utils';
import { describe, expect, it } from 'vitest';
import { websocket, WsErrorCodes } from '../src/index.ts';
import { compressionUnsupported, negotiates, sharedCompression } from '../src/compression.ts';
import { server } from './helpers.ts';

describe('websocket() options', () => {
  it.each([
    [{ idleTimeout: 5 }, /idleTimeout is 0 \(never\) or a whole number of seconds from 8 to 960/],
    [{ idleTimeout: 961 }, /uWS aborts the process on other values\); got 961/],
    [{ idleTimeout: 8.5 }, /idleTimeout/],
    [{ idleTimeout: -1 }, /idleTimeout/],
    [{ maxLifetime: 241 }, /maxLifetime is 0 \(no limit\) or a whole number of minutes up to 240/],
    [{ maxPayloadLength: 0 }, /maxPayloadLength is a whole number of bytes from 1/],
    [{ maxPayloadLength: 2 ** 31 }, /maxPayloadLength/],
    [{ maxBackpressure: 0 }, /maxBackpressure is a whole number of bytes from 1/],
    [{ maxBackpressure: 1.5 }, /maxBackpressure/],
    [{ compression: 'yes' }, /compression is true or false, got "yes"/],
    [{ closeOnBackpressureLimit: 1 }, /closeOnBackpressureLimit is true or false/],
    [{ sendPingsAutomatically: 'no' }, /sendPingsAutomatically is true or false/],
    [{ message: 'echo' }, /message must be a function, got string/],
    [{ maxPayload: 1024 }, /websocket\(\) has no option "maxPayload"; handlers are upgrade, open, message, drain, close/],
  ])('refuses %j at start-up with a clear message', (options, message) => {
    expect(() => websocket(options as never)).toThrow(message);
    expect(() => websocket(options as never)).toThrow(expect.objectContaining({ code: WsErrorCodes.INVALID_OPTION }));
  });

  it('accepts the edges of every range', () => {
    for (const options of [
      { idleTimeout: 0 },
      { idleTimeout: 8 },
      { idleTimeout: 960 },
      { maxLifetime: 240 },
      { maxPayloadLength: 1 },
      { maxBackpressure: 1 },
      { compression: false },
    ]) {
      expect(() => websocket(options)).not.toThrow();
    }
  });

  it('refuses one behavior for two servers', () => {
    const behavior = websocket();
    server().ws('/a', behavior);
    expect(() => server().ws('/a', behavior)).toThrow(/belongs to one server/);
  });
});

describe('compression', () => {
  it('negotiates permessage-deflate with this uWS binary and sends compressed frames', async () => {
    const app = server();
    app.ws(
      '/z',
      websocket({
        compression: true,
        maxPayloadLength: 200_000,
        message: (s, m) => {
          s.send(m, false);
          s.publish('z', 'b'.repeat(100_000));
        },
        open: (s) => void s.subscribe('z'),
      }),
    );
    const { url } = await start(app, 'ws');
    const client = await connect(`${url}/z`, { perMessageDeflate: { threshold: 0 } });
    const peer = await connect(`${url}/z`, { perMessageDeflate: true });
    expect(client.extensions).toContain('permessage-deflate');
    const socket = (client as unknown as { _socket: { bytesRead: number } })._socket;
    const before = socket.bytesRead;
    client.send('a'.repeat(100_000));
    await until(() => client.inbox.length === 1 && peer.inbox.length === 1, 'the echo and the publish');
    expect(client.inbox[0]!.text).toBe('a'.repeat(100_000));
    expect(peer.inbox[0]!.text).toBe('b'.repeat(100_000));
    expect(socket.bytesRead - before).toBeLessThan(2_000);
  });

  it('tells a route that negotiates from one that does not, over a real socket', async () => {
    expect(await negotiates(sharedCompression())).toBe(true);
    expect(await negotiates(0)).toBe(false);
  });

  it('names the official-build override when the binary cannot compress', () => {
    const err = compressionUnsupported();
    expect(err).toMatchObject({ code: WsErrorCodes.COMPRESSION_UNSUPPORTED });
    expect(err.message).toContain('does not negotiate permessage-deflate');
    expect(err.message).toContain('"uWebSockets.js": "github:uNetworking/uWebSockets.js#v20.52.0"');
    expect(err.message).toContain('or set compression: false');
  });
});

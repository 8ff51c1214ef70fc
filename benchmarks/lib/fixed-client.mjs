// A load client that sends an exact number of requests, for counting work per request.
// `connections` keep-alive sockets each keep one request in flight; answers are framed by
// Content-Length or chunked (ultimate-express answers so) and must have a 2xx status, or the run fails.

import net from 'node:net';

/**
 * Builds the raw bytes of one scenario request.
 * @param {{ method: string, path: string, body?: string, contentType?: string }} request
 * @param {number} port
 */
export function rawRequest(request, port) {
  const body = request.body ?? '';
  let head = `${request.method} ${request.path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n`;
  if (request.contentType) head += `Content-Type: ${request.contentType}\r\n`;
  if (body !== '' || request.method !== 'GET') head += `Content-Length: ${Buffer.byteLength(body)}\r\n`;
  return Buffer.from(`${head}\r\n${body}`);
}

/**
 * Sends `count` requests to 127.0.0.1:`port` over `connections` sockets; resolves when every
 * answer arrived.
 * @param {number} port
 * @param {Buffer} payload  one request, as bytes
 * @param {number} count
 * @param {number} [connections]
 * @param {number} [timeoutMs]
 */
export function sendFixed(port, payload, count, connections = 16, timeoutMs = 600_000) {
  return new Promise((resolve, reject) => {
    let sent = 0;
    let answered = 0;
    const sockets = [];
    const timer = setTimeout(() => fail(new Error(`only ${answered} of ${count} answers after ${timeoutMs} ms`)), timeoutMs);
    function fail(err) {
      clearTimeout(timer);
      for (const s of sockets) s.destroy();
      reject(err);
    }
    for (let i = 0; i < Math.min(connections, count); i++) {
      const socket = net.connect(port, '127.0.0.1');
      sockets.push(socket);
      let buffer = Buffer.alloc(0);
      const next = () => {
        if (sent < count) {
          sent++;
          socket.write(payload);
        } else socket.end();
      };
      socket.on('connect', next);
      socket.on('error', fail);
      socket.on('data', (data) => {
        buffer = buffer.length ? Buffer.concat([buffer, data]) : data;
        for (;;) {
          const end = buffer.indexOf('\r\n\r\n');
          if (end < 0) return;
          const head = buffer.subarray(0, end).toString('latin1');
          let after;
          if (/\r\ntransfer-encoding: *chunked/i.test(head)) {
            after = chunkedEnd(buffer, end + 4);
            if (after < 0) return;
          } else {
            const match = /\r\ncontent-length: *(\d+)/i.exec(head);
            after = end + 4 + (match ? Number(match[1]) : 0);
            if (buffer.length < after) return;
          }
          const status = Number(head.slice(9, 12));
          if (!(status >= 200 && status < 300)) return fail(new Error(`answer with status ${status}: ${head.split('\r\n')[0]}`));
          buffer = buffer.subarray(after);
          answered++;
          if (answered === count) {
            clearTimeout(timer);
            for (const s of sockets) s.end();
            return resolve();
          }
          next();
        }
      });
    }
  });
}

/**
 * Where a chunked body that starts at `offset` ends (after its last chunk and the empty trailer),
 * or -1 while it is incomplete.
 * @param {Buffer} buffer
 * @param {number} offset
 */
export function chunkedEnd(buffer, offset) {
  let at = offset;
  for (;;) {
    const line = buffer.indexOf('\r\n', at);
    if (line < 0) return -1;
    const size = Number.parseInt(buffer.subarray(at, line).toString('latin1'), 16);
    if (!(size >= 0)) throw new Error(`bad chunk size line: ${JSON.stringify(buffer.subarray(at, line).toString('latin1'))}`);
    if (size === 0) {
      // No trailers expected: the last chunk is followed by an empty line.
      if (buffer.length < line + 4) return -1;
      return line + 4;
    }
    at = line + 2 + size + 2;
    if (buffer.length < at) return -1;
  }
}

/**
 * The Node surface's body (`req.pipe()`, `req.on('data')`) of a body that core spilled to disk
 * (more than `bodyBufferSize` arrived while the consumer was slow): every byte, in order. Core's
 * own tests cover the file itself (packages/core/test/faults/body-spill.test.ts).
 */
import { createHash, randomBytes } from 'node:crypto';
import { connect } from 'node:net';
import { Writable } from 'node:stream';
import { bodySpillStats } from '@velox/core';
import { parseResponses, start } from '@velox/test-utils';
import { describe, expect, it } from 'vitest';
import { server } from './helpers.ts';

const MB = 1024 * 1024;

/** POSTs `body` to `path` as fast as the socket takes it, after `warm` bytes to /warm on the same connection; resolves with the second answer's body. */
function post(port: number, path: string, body: Buffer, warm: Buffer): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let text = '';
    let sent = false;
    socket.on('connect', () => socket.write(Buffer.concat([Buffer.from(`POST /warm HTTP/1.1\r\nHost: x\r\nContent-Length: ${warm.length}\r\n\r\n`), warm])));
    socket.on('data', (d) => {
      text += d.toString('latin1');
      const answers = parseResponses(text);
      if (answers.length === 1 && !sent) {
        sent = true;
        socket.write(Buffer.concat([Buffer.from(`POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Length: ${body.length}\r\n\r\n`), body]));
      }
      if (answers.length === 2) {
        socket.destroy();
        resolve(answers[1]!.body);
      }
    });
    socket.on('error', reject);
  });
}

/** A Writable that hashes what it gets, stopping 10 ms after each MiB. */
function slowHash(): Writable & { result: () => { size: number; hash: string } } {
  const hash = createHash('sha256');
  let size = 0;
  let since = 0;
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      hash.update(chunk);
      size += chunk.length;
      since += chunk.length;
      if (since < MB) return done();
      since = 0;
      setTimeout(done, 10);
    },
  });
  return Object.assign(sink, { result: () => ({ size, hash: hash.digest('hex') }) });
}

describe('the Node surface of a body spilled to disk', () => {
  it('req.pipe() and req.on("data") hand a slow consumer every byte in order, what waited in the file included', { timeout: 60_000 }, async () => {
    // Everything uWS reads past a pause goes to the file.
    const app = server({ bodyBufferSize: 0 });
    app.post('/warm', (req: any, res: any) => {
      req.on('data', () => {});
      req.on('end', () => res.send('warm'));
    });
    app.post('/pipe', (req: any, res: any) => {
      const sink = slowHash();
      req.pipe(sink).on('finish', () => res.json(sink.result()));
    });
    app.post('/data', (req: any, res: any) => {
      const hash = createHash('sha256');
      let size = 0;
      let since = 0;
      req.on('data', (chunk: Buffer) => {
        hash.update(chunk);
        size += chunk.length;
        since += chunk.length;
        if (since < MB) return;
        since = 0;
        req.pause();
        setTimeout(() => req.resume(), 10);
      });
      req.on('end', () => res.json({ size, hash: hash.digest('hex') }));
    });
    const { port } = await start(app);
    for (const path of ['/pipe', '/data']) {
      const before = bodySpillStats().bytes;
      const body = randomBytes(32 * MB);
      const answer = JSON.parse(await post(port, path, body, randomBytes(32 * MB)));
      expect(answer).toEqual({ size: body.length, hash: createHash('sha256').update(body).digest('hex') });
      expect(bodySpillStats().bytes).toBeGreaterThan(before);
    }
  });
});

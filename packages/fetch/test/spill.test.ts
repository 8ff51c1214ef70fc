/**
 * `request.body` of a body that core spilled to disk (more than `bodyBufferSize` arrived while
 * the app read slowly): every byte, in order. Core's own tests cover the file itself
 * (packages/core/test/faults/body-spill.test.ts); here, that this package's stream reads through it.
 */
import { createHash, randomBytes } from 'node:crypto';
import { connect } from 'node:net';
import { bodySpillStats } from '@velox/core';
import { parseResponses } from '@velox/test-utils';
import { describe, expect, it } from 'vitest';
import { served } from './helpers.ts';

const MB = 1024 * 1024;

/** POSTs `body` as fast as the socket takes it (after `warm` bytes to /warm on the same connection); resolves with the second answer's body. */
function post(port: number, body: Buffer, warm: Buffer): Promise<string> {
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
        socket.write(Buffer.concat([Buffer.from(`POST /slow HTTP/1.1\r\nHost: x\r\nContent-Length: ${body.length}\r\n\r\n`), body]));
      }
      if (answers.length === 2) {
        socket.destroy();
        resolve(answers[1]!.body);
      }
    });
    socket.on('error', reject);
  });
}

describe('request.body of a body spilled to disk', () => {
  it('hands a slow reader every byte in order, what waited in the file included', { timeout: 30_000 }, async () => {
    const { port } = await served(
      async (request) => {
        if (new URL(request.url).pathname === '/warm') return new Response(String((await request.arrayBuffer()).byteLength));
        const hash = createHash('sha256');
        let size = 0;
        let since = 0;
        for await (const chunk of request.body!) {
          hash.update(chunk);
          size += chunk.length;
          since += chunk.length;
          if (since >= MB) {
            since = 0;
            await new Promise((resolve) => setTimeout(resolve, 10));
          }
        }
        return Response.json({ size, hash: hash.digest('hex') });
      },
      // Everything uWS reads past a pause goes to the file; a large body limit for the warm-up.
      { bodyBufferSize: 0, maxBodyLength: 64 * MB },
    );
    const before = bodySpillStats().bytes;
    const body = randomBytes(32 * MB);
    const answer = JSON.parse(await post(port, body, randomBytes(32 * MB)));
    expect(answer).toEqual({ size: body.length, hash: createHash('sha256').update(body).digest('hex') });
    expect(bodySpillStats().bytes).toBeGreaterThan(before);
  });
});

/**
 * The Node surface's body (`req.pipe()`, `req.on('data')`) of a body that core spilled to disk
 * (more than `bodyBufferSize` arrived while the consumer was slow): every byte, in order. Core's
 * own tests cover the file itself (packages/core/test/faults/body-spill.test.ts).
 */
import { createHash, randomBytes } from 'node:crypto';
import { bodySpillStats } from '@velox/core';
import { digest, postAfterWarm, slowSink, start } from '@velox/test-utils';
import { describe, expect, it } from 'vitest';
import { server } from './helpers.ts';

const MB = 1024 * 1024;

describe('the Node surface of a body spilled to disk', () => {
  it('req.pipe() and req.on("data") hand a slow consumer every byte in order, what waited in the file included', { timeout: 60_000 }, async () => {
    // Everything uWS reads past a pause goes to the file.
    const app = server({ bodyBufferSize: 0 });
    app.post('/warm', (req: any, res: any) => {
      req.on('data', () => {});
      req.on('end', () => res.send('warm'));
    });
    app.post('/pipe', (req: any, res: any) => {
      // Hashes, stopping 10 ms after each MiB.
      const sink = slowSink({ every: MB, pauseMs: 10 });
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
      const answer = await postAfterWarm(port, path, body, { warm: 32 * MB });
      expect(answer.status).toBe(200);
      expect(JSON.parse(answer.body)).toEqual(digest(body));
      expect(bodySpillStats().bytes).toBeGreaterThan(before);
    }
  });
});

/**
 * `request.body` of a body that core spilled to disk (more than `bodyBufferSize` arrived while
 * the app read slowly): every byte, in order. Core's own tests cover the file itself
 * (packages/core/test/faults/body-spill.test.ts); here, that this package's stream reads through it.
 */
import { createHash, randomBytes } from 'node:crypto';
import { bodySpillStats } from '@velox/core';
import { digest, postAfterWarm } from '@velox/test-utils';
import { describe, expect, it } from 'vitest';
import { served } from './helpers.ts';

const MB = 1024 * 1024;

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
    const answer = await postAfterWarm(port, '/slow', body, { warm: 32 * MB });
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body)).toEqual(digest(body));
    expect(bodySpillStats().bytes).toBeGreaterThan(before);
  });
});

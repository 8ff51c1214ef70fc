/**
 * The request body as a web `ReadableStream`, fed from core's streamed body (`req.stream()`,
 * where uWS is paused while the consumer is slow). The stream pulls one chunk at a time, so
 * nothing is read from uWS before the consumer asks for it; it counts bytes against a limit and
 * errors with a 413 past it (or with core's 413, when the stream was made with the same limit
 * and core counted the bytes it holds unread first).
 */
import type { Readable } from 'node:stream';
import { ErrorCodes, VeloxError } from '@velox/core';

/**
 * A `ReadableStream` of `Uint8Array` chunks over a Node Readable. `onOverflow` runs once when
 * more than `limit` bytes arrive (the stream then errors with the same 413 error).
 * @example
 * ```ts
 * const body = webStream(req.stream(), 1024 * 1024, (err) => (overflow = err));
 * ```
 */
export function webStream(source: Readable, limit: number, onOverflow: (err: VeloxError) => void): ReadableStream<Uint8Array> {
  const chunks = source[Symbol.asyncIterator]();
  let received = 0;
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        let step: IteratorResult<Buffer>;
        try {
          step = await chunks.next();
        } catch (err) {
          // Core's own count of the same limit (`req.stream({ limit })`) came first.
          if ((err as VeloxError)?.code === ErrorCodes.BODY_TOO_LARGE) onOverflow(err as VeloxError);
          controller.error(err);
          return;
        }
        if (step.done) {
          controller.close();
          return;
        }
        const chunk = step.value;
        received += chunk.length;
        if (received > limit) {
          const err = new VeloxError(ErrorCodes.BODY_TOO_LARGE, `Body is larger than ${limit} bytes`, { status: 413 });
          onOverflow(err);
          controller.error(err);
          void chunks.return?.();
          return;
        }
        controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.length));
      },
      async cancel() {
        await chunks.return?.();
      },
    },
    { highWaterMark: 0 },
  );
}

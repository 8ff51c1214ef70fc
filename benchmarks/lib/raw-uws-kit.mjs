// What the raw uWebSockets.js servers share: reading a body (onAborted + onData, partial chunks
// copied because uWS reuses its buffer once onData returns, the last one decoded in place), the
// validated scenario's answer, and listening.
import { payloadSchema } from './schema.mjs';

/**
 * Calls `onBody(text, isAborted)` once the whole body arrived, from inside uWS's data callback.
 * @param {import('uWebSockets.js').HttpResponse} res
 * @param {(text: string, isAborted: () => boolean) => void} onBody
 */
export function readBody(res, onBody) {
  let aborted = false;
  let chunks = null;
  res.onAborted(() => {
    aborted = true;
  });
  res.onData((chunk, isLast) => {
    if (!isLast) {
      (chunks ??= []).push(Buffer.from(new Uint8Array(chunk)));
      return;
    }
    const text = chunks ? Buffer.concat([...chunks, Buffer.from(chunk)]).toString('utf8') : Buffer.from(chunk).toString('utf8');
    onBody(text, () => aborted);
  });
}

/** The validated scenario's answer: the checked payload as JSON, or null (400) when invalid. */
export function validatedAnswer(value) {
  const result = payloadSchema.safeParse(value);
  return result.success ? JSON.stringify(result.data) : null;
}

/** `listen` for serve(): binds 127.0.0.1 and resolves to the port. */
export function listenRaw(uWS) {
  return (app, port) =>
    new Promise((resolve, reject) => {
      app.listen('127.0.0.1', port, (token) => {
        if (!token) reject(new Error(`uWS could not listen on 127.0.0.1:${port}`));
        else resolve(uWS.us_socket_local_port(token));
      });
    });
}

// Raw uWebSockets.js, answering the body scenarios the way a framework must when the handler is
// `async (req, res) => res.json(await req.json())`: every request header is copied before the
// route callback returns (uWS's request object dies then, and the handler may still read a
// header after its await), and the answer is written from a promise continuation instead of from
// inside uWS's data callback. Nothing else is added. It measures the floor for any framework that
// keeps that handler shape and Express-like `req.headers`; it is not a baseline for ratios.
import { assertNativeUws, serve } from '../lib/server-kit.mjs';
import { payloadSchema } from '../lib/schema.mjs';

const uWS = assertNativeUws(import.meta.url);

let copying = null;
function copy(key, value) {
  copying.push(key, value);
}

/** Copies the headers, reads the JSON body, and answers from a continuation with `answer(value)` (null: 400). */
function readJsonLater(res, req, answer) {
  copying = [];
  req.forEach(copy);
  const headers = copying;
  copying = null;
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
    let value;
    try {
      value = JSON.parse(text);
    } catch {
      value = undefined;
    }
    // The continuation runs in the microtasks uWS drains before it uncorks this socket.
    Promise.resolve(value).then((v) => {
      if (aborted) return;
      const out = v === undefined ? null : answer(v, headers);
      if (out === null) res.writeStatus('400 Bad Request').end('invalid body');
      else res.writeHeader('content-type', 'application/json').end(out);
    });
  });
}

await serve({
  create: () => uWS.App(),
  scenarios: {
    body(app) {
      app.post('/json', (res, req) => {
        readJsonLater(res, req, (value) => JSON.stringify(value));
      });
    },

    validated(app) {
      app.post('/json', (res, req) => {
        readJsonLater(res, req, (value) => {
          const result = payloadSchema.safeParse(value);
          return result.success ? JSON.stringify(result.data) : null;
        });
      });
    },
  },
  listen: (app, port) =>
    new Promise((resolve, reject) => {
      app.listen('127.0.0.1', port, (token) => {
        if (!token) reject(new Error(`uWS could not listen on 127.0.0.1:${port}`));
        else resolve(uWS.us_socket_local_port(token));
      });
    }),
});

// Raw uWebSockets.js, answering the body scenarios the way a framework must when the handler is
// `async (req, res) => res.json(await req.json())`: every request header is copied before the
// route callback returns (uWS's request object dies then, and the handler may still read a
// header after its await), and the answer is written from a promise continuation instead of from
// inside uWS's data callback. Nothing else is added. It measures the floor for any framework that
// keeps that handler shape and Express-like `req.headers`; it is not a baseline for ratios.

import { listenRaw, readBody, validatedAnswer } from '../lib/raw-uws-kit.mjs';
import { assertNativeUws, serve } from '../lib/server-kit.mjs';

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
  readBody(res, (text, isAborted) => {
    let value;
    try {
      value = JSON.parse(text);
    } catch {
      value = undefined;
    }
    // The continuation runs in the microtasks uWS drains before it uncorks this socket.
    Promise.resolve(value).then((v) => {
      if (isAborted()) return;
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
        readJsonLater(res, req, validatedAnswer);
      });
    },
  },
  listen: listenRaw(uWS),
});

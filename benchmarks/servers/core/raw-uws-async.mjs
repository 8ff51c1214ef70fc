// Raw uWebSockets.js running the body scenarios through the handler shape Velox's benchmark
// uses, `async (req, res) => res.json(await req.json())`, with nothing else added:
//   - every request header is copied before the route callback returns (uWS's request object
//     dies then, and a handler may still read a header after its await);
//   - the body is a promise made before the data arrives and settled from uWS's data callback;
//   - the handler is an async function that awaits it, and the route watches the handler's
//     promise for a rejection.
// No routing chain, no request or response objects, no error handler. It is the floor for any
// framework running that handler on uWS: what the shape itself costs next to raw uWS answering
// from inside its data callback (servers/core/raw-uws.mjs). It is not a baseline for ratios.
import { listenRaw, validatedAnswer } from '../../lib/raw-uws-kit.mjs';
import { assertNativeUws, serve } from '../../lib/server-kit.mjs';

const uWS = assertNativeUws(import.meta.url);

let copying = null;
function copy(key, value) {
  copying.push(key, value);
}

/** The body as parsed JSON: pending until uWS hands over its last chunk. */
function readJson(res) {
  return new Promise((resolve, reject) => {
    let chunks = null;
    res.onData((chunk, isLast) => {
      if (!isLast) {
        (chunks ??= []).push(Buffer.from(new Uint8Array(chunk)));
        return;
      }
      const bytes = chunks ? Buffer.concat([...chunks, Buffer.from(chunk)]) : Buffer.from(chunk);
      try {
        resolve(JSON.parse(bytes.toString()));
      } catch (err) {
        reject(err);
      }
    });
  });
}

/**
 * The route: copies the headers, registers the abort handler and runs `handler`, watching its
 * promise. The continuation after the body's await runs in the microtasks uWS drains inside its
 * data callback, with the socket corked, so the answer needs no cork of its own.
 */
function route(handler) {
  return (res, req) => {
    copying = [];
    req.forEach(copy);
    const state = { headers: copying, aborted: false };
    copying = null;
    res.onAborted(() => {
      state.aborted = true;
    });
    handler(res, state).then(undefined, () => {
      if (!state.aborted) res.cork(() => res.writeStatus('400 Bad Request').end('invalid body'));
    });
  };
}

await serve({
  create: () => uWS.App(),
  scenarios: {
    body(app) {
      app.post(
        '/json',
        route(async (res, state) => {
          const value = await readJson(res);
          if (!state.aborted) res.writeHeader('content-type', 'application/json').end(JSON.stringify(value));
        }),
      );
    },

    validated(app) {
      app.post(
        '/json',
        route(async (res, state) => {
          const out = validatedAnswer(await readJson(res));
          if (state.aborted) return;
          if (out === null) res.writeStatus('400 Bad Request').end('invalid body');
          else res.writeHeader('content-type', 'application/json').end(out);
        }),
      );
    },
  },
  listen: listenRaw(uWS),
});

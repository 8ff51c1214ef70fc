// ultimate-express (an Express-compatible API on uWebSockets.js), written as
// ordinary Express code.
import express from 'ultimate-express';
import { expressScenarios } from '../../lib/express-scenarios.mjs';
import { assertNativeUws, serve } from '../../lib/server-kit.mjs';

await serve({
  check: () => assertNativeUws(import.meta.url, 'ultimate-express'),
  create: () => express(),
  scenarios: expressScenarios(express),
  listen: (app, port) =>
    new Promise((resolve, reject) => {
      app.listen(port, '127.0.0.1', (token) => {
        if (token === false) reject(new Error(`could not listen on 127.0.0.1:${port}`));
        else resolve(app.port);
      });
    }),
});

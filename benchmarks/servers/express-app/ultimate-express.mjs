// The same Express app on ultimate-express (Express 4's API re-implemented on uWS).
import express from 'ultimate-express';
import { assertNativeUws, serve } from '../../lib/server-kit.mjs';
import { expressAppScenarios } from './app.mjs';

await serve({
  check: () => assertNativeUws(import.meta.url, 'ultimate-express'),
  create: () => express(),
  scenarios: expressAppScenarios(express),
  listen: (app, port) =>
    new Promise((resolve, reject) => {
      app.listen(port, '127.0.0.1', (token) => {
        if (token === false) reject(new Error(`could not listen on 127.0.0.1:${port}`));
        else resolve(app.port);
      });
    }),
});

// ultimate-express with its express.static, default options.
import express from 'ultimate-express';
import { assertNativeUws, serve } from '../../lib/server-kit.mjs';
import { ensureFixture } from './fixture.mjs';

const { site } = ensureFixture();

await serve({
  check: () => assertNativeUws(import.meta.url, 'ultimate-express'),
  create: () => express(),
  scenarios: {
    static: (app) => app.use('/static', express.static(site)),
    'static-large': (app) => app.use('/static', express.static(site)),
    'static-304': (app) => app.use('/static', express.static(site)),
  },
  listen: (app, port) =>
    new Promise((resolve, reject) => {
      app.listen(port, '127.0.0.1', (token) => {
        if (token === false) reject(new Error(`could not listen on 127.0.0.1:${port}`));
        else resolve(app.port);
      });
    }),
});

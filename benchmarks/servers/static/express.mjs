// Express with express.static (serve-static), default options.
import express from 'express';
import { serve } from '../../lib/server-kit.mjs';
import { ensureFixture } from './fixture.mjs';

const { site } = ensureFixture();

await serve({
  create: () => express(),
  scenarios: {
    static: (app) => app.use('/static', express.static(site)),
    'static-large': (app) => app.use('/static', express.static(site)),
    'static-304': (app) => app.use('/static', express.static(site)),
  },
  listen: (app, port) =>
    new Promise((resolve, reject) => {
      const server = app.listen(port, '127.0.0.1', (err) => {
        if (err) reject(err);
        else resolve(server.address().port);
      });
    }),
});

// Express 5 on node:http.
import express from 'express';
import { expressScenarios } from '../../lib/express-scenarios.mjs';
import { serve } from '../../lib/server-kit.mjs';

await serve({
  create: () => express(),
  scenarios: expressScenarios(express),
  listen: (app, port) =>
    new Promise((resolve, reject) => {
      const server = app.listen(port, '127.0.0.1', (err) => {
        if (err) reject(err);
        else resolve(server.address().port);
      });
    }),
});

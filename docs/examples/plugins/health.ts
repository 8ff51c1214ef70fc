// #region code
import type { Plugin } from '@velox/core';
import { Router } from '@velox/router';

/**
 * A health check route, at `/healthz` unless told otherwise.
 * @example
 * await app.register(health, { path: '/status' });
 */
export const health: Plugin<{ path?: string }> = (server, { path = '/healthz' }) => {
  const router = new Router();
  router.get('/', (req, res) => res.json({ ok: true }));
  server.use(path, router);
};
// #endregion

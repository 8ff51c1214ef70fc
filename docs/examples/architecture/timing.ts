// #region code
import type { Plugin } from '@velox/core';

declare module '@velox/core' {
  interface Request {
    startedAt: number;
  }
}

export const timing: Plugin<{ header?: string }> = (server, options) => {
  const header = options.header ?? 'server-timing';
  server.use((req, res, next) => {
    req.startedAt = performance.now();
    next();
  });
  server.addHook('onSend', (req, res) => {
    res.set(header, `total;dur=${(performance.now() - req.startedAt).toFixed(1)}`);
  });
};
// #endregion

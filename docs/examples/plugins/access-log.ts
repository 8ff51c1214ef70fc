// #region code
import { open } from 'node:fs/promises';
import type { Plugin } from '@velox/core';

/**
 * Appends one line per response to a file, opened once at start-up and closed with the server.
 * @example
 * await app.register(accessLog, { path: '/var/log/app/access.log' });
 */
export const accessLog: Plugin<{ path: string }> = async (server, { path }) => {
  const file = await open(path, 'a'); // a path that cannot be opened rejects register() and listen()
  server.addHook('onResponse', (req, res) => {
    file.write(`${new Date().toISOString()} ${req.method} ${req.path} ${res.statusCode}\n`).catch((err) => console.error(err));
  });
  server.addHook('onClose', () => file.close());
};
// #endregion

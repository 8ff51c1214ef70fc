/**
 * Behaviours of @velox/core that the router has to work around, shown by tests. Each is written
 * as `it.fails`: it runs, and passes while core has the problem. When core is fixed, the test
 * fails; remove `.fails` then (and the router's workaround, if any).
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { Router } from '../src/index.ts';
import { get, listen, server } from './helpers.ts';

describe('core: catch-all routes', () => {
  // server.ts #mountAll registers its own uWS any('/*') for not-found after the routes; a user
  // route ANY /* is a second handler for the same uWS pattern, and uWS aborts the process
  // ("Internal routing error"). This is also why routers cannot add a catch-all at the root.
  it.fails("lets app.any('/*', handler) listen and answer", () => {
    const child = spawnSync(process.execPath, ['--import', 'tsx', fileURLToPath(new URL('./fixtures/any-root.ts', import.meta.url))], {
      encoding: 'utf8',
      timeout: 10_000,
    });
    expect(child.stderr).not.toContain('Internal routing error');
    expect(child.status).toBe(0);
    expect(child.stdout).toBe('mine');
  });

  // A router's catch-all (case folding) that finds nothing can only call next(), which core turns
  // into a 404 error for the error handlers; core offers no way to reach the server's own
  // not-found handler (setNotFoundHandler) from a route.
  it.fails("reaches the server's not-found handler for a miss under a case-insensitive router", async () => {
    const app = server();
    app.setNotFoundHandler((_req, res) => res.status(404).send('custom not found'));
    const r = new Router({ caseSensitive: false });
    r.get('/x', (_req, res) => res.send('x'));
    app.use('/api', r);
    const base = await listen(app);
    expect((await get(`${base}/api/missing`)).text).toBe('custom not found');
  });
});

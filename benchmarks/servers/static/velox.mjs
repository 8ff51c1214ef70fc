// Velox with @velox/static, default options: `app.use('/static', serveStatic(dir))`.
import { Server } from '@velox/core';
import { serveStatic } from '@velox/static';
import { assertNativeUws, serve } from '../../lib/server-kit.mjs';
import { ensureFixture } from './fixture.mjs';

const { site, many } = ensureFixture();

/** Mounts a directory and waits until it is indexed. */
let pending;
function mount(app, prefix, dir) {
  const files = serveStatic(dir);
  app.use(prefix, files);
  pending = files.ready();
}

await serve({
  check: () => assertNativeUws(import.meta.url, '@velox/core'),
  create: () => new Server({ logger: false }),
  scenarios: {
    static: (app) => mount(app, '/static', site),
    'static-large': (app) => mount(app, '/static', site),
    'static-304': (app) => mount(app, '/static', site),
    'static-rss': (app) => mount(app, '/many', many),
  },
  listen: async (app, port) => {
    await pending;
    return (await app.listen(port, '127.0.0.1')).port;
  },
});

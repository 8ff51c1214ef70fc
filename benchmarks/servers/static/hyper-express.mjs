// hyper-express with live-directory, as its docs pair them: every file in memory (the cache
// limits raised so all of them are), answered with the same headers as the others and 304 on a
// matching If-None-Match.
import HyperExpress from 'hyper-express';
import LiveDirectory from 'live-directory';
import { assertNativeUws, serve } from '../../lib/server-kit.mjs';
import { ensureFixture } from './fixture.mjs';

const { site, many } = ensureFixture();

let pending;
function mount(app, prefix, dir) {
  const assets = new LiveDirectory(dir, { static: true, cache: { max_file_count: 20_000, max_file_size: 512 * 1024 } });
  pending = new Promise((resolve) => assets.once('ready', resolve));
  app.get(`${prefix}/*`, (req, res) => {
    const file = assets.get(req.path.slice(prefix.length + 1));
    if (!file) return res.status(404).send('Not Found');
    const etag = file.etag;
    res.header('etag', etag);
    res.header('last-modified', file.stats.mtime.toUTCString());
    res.header('cache-control', 'public, max-age=0');
    res.header('vary', 'Accept-Encoding');
    if (req.headers['if-none-match'] === etag) return res.status(304).send();
    res.header('accept-ranges', 'bytes');
    res.type('txt');
    res.send(file.content);
  });
}

await serve({
  check: () => assertNativeUws(import.meta.url, 'hyper-express'),
  create: () => new HyperExpress.Server(),
  scenarios: {
    static: (app) => mount(app, '/static', site),
    'static-large': (app) => mount(app, '/static', site),
    'static-304': (app) => mount(app, '/static', site),
    'static-rss': (app) => mount(app, '/many', many),
  },
  listen: async (app, port) => {
    await pending;
    await app.listen(port, '127.0.0.1');
    return app.port;
  },
});

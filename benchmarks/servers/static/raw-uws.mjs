// Raw uWebSockets.js, the floor of the static suite: each file read once into a Buffer at start,
// answered with the same headers Velox sends (content type, ETag, Last-Modified, Cache-Control,
// Accept-Ranges, Vary), and 304 when If-None-Match equals the ETag: the least work a file server
// that revalidates does. No range, precondition or Accept-Encoding handling.

import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { assertNativeUws, serve } from '../../lib/server-kit.mjs';
import { ensureFixture } from './fixture.mjs';

const uWS = assertNativeUws(import.meta.url);
const { site, many } = ensureFixture();

/** Adds GET <prefix>/<name> for one file. */
function route(app, prefix, dir, name) {
  const path = join(dir, name);
  const body = readFileSync(path);
  const etag = `"${createHash('sha1').update(body).digest('base64url')}"`;
  const lastModified = statSync(path).mtime.toUTCString();
  app.get(`${prefix}/${name}`, (res, req) => {
    if (req.getHeader('if-none-match') === etag) {
      res
        .writeStatus('304 Not Modified')
        .writeHeader('etag', etag)
        .writeHeader('last-modified', lastModified)
        .writeHeader('cache-control', 'public, max-age=0')
        .writeHeader('vary', 'Accept-Encoding')
        .endWithoutBody();
      return;
    }
    res
      .writeHeader('content-type', 'text/plain; charset=utf-8')
      .writeHeader('etag', etag)
      .writeHeader('last-modified', lastModified)
      .writeHeader('cache-control', 'public, max-age=0')
      .writeHeader('accept-ranges', 'bytes')
      .writeHeader('vary', 'Accept-Encoding')
      .end(body);
  });
}

function siteRoutes(app) {
  for (const name of ['small.txt', 'large.txt']) route(app, '/static', site, name);
}

await serve({
  create: () => uWS.App(),
  scenarios: {
    static: siteRoutes,
    'static-large': siteRoutes,
    'static-304': siteRoutes,
    'static-rss'(app) {
      for (const dir of readdirSync(many)) for (const name of readdirSync(join(many, dir))) route(app, `/many/${dir}`, join(many, dir), name);
    },
  },
  listen: (app, port) =>
    new Promise((resolve) => app.listen('127.0.0.1', port, (socket) => resolve(socket ? uWS.us_socket_local_port(socket) : -1))),
});

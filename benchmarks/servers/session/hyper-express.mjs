// hyper-express 6.17.3 + hyper-express-session 1.1.5, set up as its docs show (docs/Examples.md),
// with the store on a Map instead of Redis: 'read' returns the parsed data, 'write' stores it as
// JSON with its expiry, 'touch' moves the expiry. (hyper-express-session writes after the answer
// has left: it runs its closure on the response's 'prepare' event and does not hold the answer.)
import HyperExpress from 'hyper-express';
import SessionEngine from 'hyper-express-session';
import { assertNativeUws, serve } from '../../lib/server-kit.mjs';
import { SESSION_SECRET } from './common.mjs';

const sessions = new Map();

function engine() {
  const e = new SessionEngine({
    duration: 30 * 60_000,
    cookie: { name: 'sid', path: '/', httpOnly: true, secure: false, sameSite: 'lax', secret: SESSION_SECRET },
  });
  e.use('read', async (session) => {
    const hit = sessions.get(session.id);
    if (!hit) return undefined;
    if (hit.expires <= Date.now()) {
      sessions.delete(session.id);
      return undefined;
    }
    return JSON.parse(hit.data);
  });
  e.use('touch', async (session) => {
    const hit = sessions.get(session.id);
    if (hit) hit.expires = session.expires_at;
  });
  e.use('write', async (session) => {
    sessions.set(session.id, { data: JSON.stringify(session.get()), expires: session.expires_at });
  });
  e.use('destroy', async (session) => {
    sessions.delete(session.id);
  });
  return e;
}

await serve({
  check: () => assertNativeUws(import.meta.url, 'hyper-express'),
  create: () => new HyperExpress.Server(),
  scenarios: {
    session(app) {
      app.use(engine().middleware);
      app.get('/visits', async (req, res) => {
        await req.session.start();
        const visits = (req.session.get('visits') ?? 0) + 1;
        req.session.set('visits', visits);
        res.json({ visits });
      });
    },
  },
  listen: async (app, port) => {
    await app.listen(port, '127.0.0.1');
    return app.port;
  },
});

// Sessions: a visits counter, login and logout. MemoryStore by default; RedisStore when REDIS_URL
// is set (REDIS_URL=redis://127.0.0.1:6379 pnpm exec tsx examples/session.ts).
//   curl -c jar -b jar localhost:3000/visits           → {"visits":1}, then 2, 3…
//   curl -c jar -b jar -X POST localhost:3000/login -d 'name=ana'   → 302 to /me
//   curl -c jar -b jar localhost:3000/me                → {"user":"ana","visits":…}
//   curl -c jar -b jar -X POST localhost:3000/logout    → bye
import { randomBytes } from 'node:crypto';
import { Server } from '@velox/core';
import { MemoryStore, RedisStore, session } from '@velox/session';

declare module '@velox/session' {
  interface SessionData {
    visits: number;
    user: string;
  }
}

// In production, SESSION_SECRET comes from the environment (at least 32 characters); a random
// one here means sessions do not survive a restart of the example.
const secret = process.env.SESSION_SECRET ?? randomBytes(32).toString('base64url');

const app = new Server();
await app.register(session, {
  secret: [secret, process.env.OLD_SESSION_SECRET],
  store: process.env.REDIS_URL ? new RedisStore({ url: process.env.REDIS_URL, prefix: 'example:sess:' }) : new MemoryStore(),
  idleTimeout: 30 * 60_000,
  absoluteTimeout: 24 * 3600_000,
});

app.get('/visits', async (req, res) => {
  await req.session.start();
  const visits = (req.session.get('visits') ?? 0) + 1;
  req.session.set('visits', visits);
  res.json({ visits });
});

app.post('/login', async (req, res) => {
  const { name } = await req.urlencoded();
  if (typeof name !== 'string' || name === '') return res.status(400).json({ error: 'name is required' });
  await req.session.start();
  await req.session.regenerate(); // a new id at login: the one from before is dead (fixation)
  req.session.set('user', name);
  res.redirect('/me'); // sent once the store has the session, so /me sees it
});

app.get('/me', async (req, res) => {
  await req.session.start();
  const user = req.session.get('user');
  if (!user) return res.status(401).json({ error: 'log in first' });
  res.json({ user, visits: req.session.get('visits') ?? 0 });
});

app.post('/logout', async (req, res) => {
  await req.session.start();
  await req.session.destroy(); // the record and the cookie both go
  res.send('bye');
});

app.get('/', (req, res) => res.send('No session here: this route never starts one, and pays nothing for it.'));

// SIGINT/SIGTERM: stop accepting, finish in-flight requests (up to 5 s), run onClose hooks, exit 0.
app.closeOnSignals({ timeout: 5000 });

const { port } = await app.listen(Number(process.env.PORT ?? 3000), process.env.HOST ?? '127.0.0.1');
console.log(`Session example on http://127.0.0.1:${port} (${process.env.REDIS_URL ? 'RedisStore' : 'MemoryStore'})`);

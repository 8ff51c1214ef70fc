import { once } from 'node:events';
import multer from 'multer';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { type AnyExpress, majors } from './helpers.ts';

/** An app with what a test suite of an Express app exercises. */
function buildApp(ex: AnyExpress) {
  const app = ex();
  app.set('env', 'test');
  app.use(ex.json());
  const upload = multer({ storage: multer.memoryStorage() });
  app.get('/users/:id', (req: any, res: any) => res.json({ id: req.params.id, query: req.query }));
  app.post('/users', (req: any, res: any) => res.status(201).location(`/users/${req.body.name}`).json({ created: req.body }));
  app.post('/login', (req: any, res: any) => {
    res.cookie('user', req.body.name, { httpOnly: true });
    res.cookie('theme', 'dark');
    res.redirect(303, '/me');
  });
  app.get('/me', (req: any, res: any) => {
    const cookie: string = req.get('cookie') ?? '';
    const user = /(?:^|; )user=([^;]+)/.exec(cookie)?.[1];
    if (!user) return res.status(401).json({ error: 'who are you?' });
    res.json({ user });
  });
  app.get('/stream', async (req: any, res: any) => {
    res.type('text');
    for (const part of ['one ', 'two ', 'three']) {
      res.write(part);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    res.end();
  });
  app.post('/upload', upload.single('doc'), (req: any, res: any) =>
    res.json({ title: req.body.title, file: { name: req.file.originalname, type: req.file.mimetype, size: req.file.size, text: req.file.buffer.toString() } }),
  );
  app.get('/boom', () => {
    throw Object.assign(new Error('not today'), { status: 418 });
  });
  app.use((err: any, req: any, res: any, _next: any) => res.status(err.status ?? 500).json({ error: err.message }));
  return app;
}

describe.each(majors)('supertest and @velox/express $major', ({ velox }) => {
  it('supertest(app): GET with params and query, POST JSON', async () => {
    const app = buildApp(velox);
    const got = await request(app).get('/users/7?tab=a').expect(200).expect('content-type', /json/);
    expect(got.body).toEqual({ id: '7', query: { tab: 'a' } });
    const created = await request(app).post('/users').send({ name: 'ana' }).expect(201).expect('location', '/users/ana');
    expect(created.body).toEqual({ created: { name: 'ana' } });
  });

  it('supertest(app): HEAD keeps an app-set Content-Length (100), with no body, as Express sends it', async () => {
    const app = velox();
    app.get('/sized', (req: any, res: any) => res.set('Content-Length', 100).end());
    const head = await request(app).head('/sized').expect(200);
    expect(head.headers['content-length']).toBe('100');
    expect(head.text ?? '').toBe('');
  });

  it('supertest(app): cookies kept by an agent across a redirect', async () => {
    const app = buildApp(velox);
    const login = await request(app).post('/login').send({ name: 'bea' }).expect(303).expect('location', '/me');
    expect(login.headers['set-cookie']).toEqual(['user=bea; Path=/; HttpOnly', 'theme=dark; Path=/']);
    await request(app).get('/me').expect(401, { error: 'who are you?' });

    const agent = request.agent(app);
    await agent.post('/login').send({ name: 'bea' }).expect(303);
    await agent.get('/me').expect(200, { user: 'bea' });
    // Following the redirect: superagent carries the agent's cookies to /me.
    const followed = await request.agent(app).post('/login').send({ name: 'cy' }).redirects(1);
    expect(followed.status).toBe(200);
    expect(followed.body).toEqual({ user: 'cy' });
  });

  it('supertest(app): errors through the error middleware, a streamed body, a 404', async () => {
    const app = buildApp(velox);
    await request(app).get('/boom').expect(418, { error: 'not today' });
    const streamed = await request(app).get('/stream').expect(200).expect('content-type', /text\/plain/);
    expect(streamed.text).toBe('one two three');
    await request(app).get('/nowhere').expect(404);
  });

  it('supertest(app): a file upload through multer', async () => {
    const app = buildApp(velox);
    const res = await request(app).post('/upload').field('title', 'report').attach('doc', Buffer.from('file contents'), { filename: 'r.txt', contentType: 'text/plain' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ title: 'report', file: { name: 'r.txt', type: 'text/plain', size: 13, text: 'file contents' } });
  });

  it('supertest(app.listen()): waits for the bind under way, and closes the server after, as one it started', async () => {
    const app = buildApp(velox);
    const server = app.listen();
    const res = await request(server).get('/users/1').expect(200);
    expect(res.body).toEqual({ id: '1', query: {} });
    // supertest found no address yet, so it treated the server as its own and closed it.
    expect(server.listening).toBe(false);
    // …and starts it again for the next request.
    await request(server).post('/users').send({ name: 'di' }).expect(201);
    expect(server.listening).toBe(false);
  });

  it('supertest(server) of a server already listening: left listening, for the caller to close', async () => {
    const app = buildApp(velox);
    const server = app.listen(0, '127.0.0.1');
    await once(server, 'listening');
    await request(server).get('/users/2').expect(200, { id: '2', query: {} });
    await request(server).get('/users/3').expect(200, { id: '3', query: {} });
    expect(server.listening).toBe(true);
    await new Promise<void>((resolve, reject) => server.close((err?: Error) => (err ? reject(err) : resolve())));
    expect(server.listening).toBe(false);
  });
});

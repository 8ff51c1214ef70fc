// The notes API of docs/getting-started.md, whole: middleware, bodies, a router, validation,
// errors, stopping, and its own documentation. The guide quotes it region by region.
// $ ADMIN_TOKEN=s3cret pnpm exec tsx docs/examples/getting-started/notes-api.ts
// Notes API on http://127.0.0.1:3000
// #region imports
import { randomUUID } from 'node:crypto';
import { Server, VeloxError } from '@velox/core';
import { describeRoute, openapi } from '@velox/openapi';
import { Router } from '@velox/router';
import { validate } from '@velox/validate';
import { z } from 'zod';
// #endregion

// #region store
interface Note {
  id: string;
  text: string;
}
const notes = new Map<string, Note>(); // a database stands here in a real app
let lastId = 0;
// #endregion

// #region server
const app = new Server({ maxBodyLength: 64 * 1024 });
// #endregion

// #region openapi
await app.register(openapi, { info: { title: 'Notes API', version: '1.0.0' }, path: '/openapi.json', ui: '/docs' });

// What the routes answer, for the document (nothing checks answers at run time). The error
// handler further down answers { error, issues? } for every 4xx, validation failures included.
const noteSchema = z.object({ id: z.string(), text: z.string() }).meta({ id: 'Note' });
const errorSchema = z
  .object({
    error: z.string(),
    issues: z.array(z.object({ in: z.string(), path: z.array(z.union([z.string(), z.number()])), message: z.string() })).optional(),
  })
  .meta({ id: 'Error' });
// #endregion

// #region middleware
app.use((req, res, next) => {
  res.set('x-request-id', randomUUID());
  next();
});

const adminToken = process.env.ADMIN_TOKEN;
app.use('/admin', (req, res, next) => {
  // With ADMIN_TOKEN unset nobody is admin: without the first test, a client sending
  // "Bearer undefined" would be.
  if (!adminToken || req.get('authorization') !== `Bearer ${adminToken}`) {
    return res.status(401).json({ error: 'Admin token required' });
  }
  next();
});
app.get('/admin/stats', (req, res) => res.json({ notes: notes.size }));
// #endregion

// #region bodies
app.post('/echo', async (req, res) => {
  const body = await req.json(); // not sent as JSON: 415; malformed: 400
  res.json({ received: body });
});
// #endregion

// #region router
const api = new Router();
api.use(describeRoute({ tags: ['notes'] }));
api.get('/', describeRoute({ summary: 'All notes' }), validate({ response: { 200: z.array(noteSchema) } }), (req, res) =>
  res.json([...notes.values()]),
);
api.get(
  '/:id',
  describeRoute({ summary: 'One note' }),
  validate({ response: { 200: noteSchema, 404: errorSchema } }),
  (req, res) => {
    const note = notes.get(req.params.id);
    if (!note) throw new VeloxError('NOTE_NOT_FOUND', `No note ${req.params.id}`, { status: 404 });
    res.json(note);
  },
);
// #endregion

// #region validation
const newNote = z.object({ text: z.string().min(1).max(500) });

api.post(
  '/',
  describeRoute({ summary: 'Add a note' }),
  validate({ body: newNote, response: { 201: noteSchema, 400: errorSchema } }),
  (req, res) => {
    const note = { id: String(++lastId), text: req.body.text }; // req.body.text: string
    notes.set(note.id, note);
    res.status(201).json(note);
  },
);

app.use('/api/notes', api);
// #endregion

// #region errors
app.setErrorHandler((err, req, res) => {
  const status = err instanceof VeloxError ? err.status : 500;
  if (status >= 500) console.error(err);
  res.status(status).json(status < 500 ? { error: err.message, issues: err.details?.issues } : { error: 'Internal error' });
});
app.setNotFoundHandler((req, res) => res.status(404).json({ error: `No route for ${req.method} ${req.path}` }));
// #endregion

// #region listen
const { port } = await app.listen(Number(process.env.PORT ?? 3000), '127.0.0.1');
console.log(`Notes API on http://127.0.0.1:${port}`);

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    app.close({ timeout: 5000 }).then(() => process.exit(0));
  });
}
// #endregion

// #region try-bodies
// $ curl -s --json '{"text":"buy milk"}' 127.0.0.1:3000/echo
// {"received":{"text":"buy milk"}}
// $ curl -s -d '{"text":"buy milk"}' 127.0.0.1:3000/echo
// {"error":"Expected a JSON body with Content-Type: application/json, got \"application/x-www-form-urlencoded\""}
// $ curl -s --json '{"text":' 127.0.0.1:3000/echo
// {"error":"Body is not valid JSON"}
// #endregion

// #region try-notes
// $ curl -s --json '{"text":"buy milk"}' 127.0.0.1:3000/api/notes
// {"id":"1","text":"buy milk"}
// $ curl -s 127.0.0.1:3000/api/notes/1
// {"id":"1","text":"buy milk"}
// $ curl -s 127.0.0.1:3000/api/notes
// [{"id":"1","text":"buy milk"}]
// #endregion

// #region try-validation
// $ curl -s --json '{"text":""}' 127.0.0.1:3000/api/notes
// {"error":"Request validation failed","issues":[{"in":"body","path":["text"],"message":"Too small: expected string to have >=1 characters"}]}
// #endregion

// #region try-errors
// $ curl -s 127.0.0.1:3000/api/notes/42
// {"error":"No note 42"}
// $ curl -s 127.0.0.1:3000/nothing
// {"error":"No route for GET /nothing"}
// #endregion

// #region try-docs
// $ curl -s -o /dev/null -w '%{http_code}\n' 127.0.0.1:3000/docs
// 200
// #endregion

// #region try-admin
// $ curl -s -o /dev/null -w '%{http_code}\n' 127.0.0.1:3000/admin/stats
// 401
// $ curl -s -H 'authorization: Bearer undefined' 127.0.0.1:3000/admin/stats
// {"error":"Admin token required"}
// $ curl -s -H 'authorization: Bearer s3cret' 127.0.0.1:3000/admin/stats
// {"notes":1}
// #endregion

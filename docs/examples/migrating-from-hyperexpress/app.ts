// A small HyperExpress app moved to Velox (docs/migrating-from-hyperexpress.md).
// $ pnpm exec tsx docs/examples/migrating-from-hyperexpress/app.ts
// listening on http://127.0.0.1:3000
// #region code
import { Server } from '@velox/core';

const app = new Server(); // new HyperExpress.Server()

// request.path_parameters → req.params; request.query_parameters → req.query
app.get('/users/:id', (req, res) => res.json({ id: req.params.id, fields: req.query.fields ?? 'all' }));

// await request.json() parsed any body; req.json() wants a JSON Content-Type (415 otherwise)
app.post('/users', async (req, res) => res.status(201).json(await req.json()));
// For a client that posts JSON as text/plain (navigator.sendBeacon), say so per route:
app.post('/beacon', async (req, res) => res.json(await req.json({ anyType: true })));

// server.set_error_handler((request, response, error) => …): the error comes first here
app.setErrorHandler((err, req, res) => res.status(err.status ?? 500).json({ error: err.message, code: err.code }));

const { port } = await app.listen(Number(process.env.PORT ?? 3000), '127.0.0.1');
console.log(`listening on http://127.0.0.1:${port}`);
process.once('SIGTERM', () => app.close().then(() => process.exit(0)));
// #endregion

// #region try
// $ curl -s '127.0.0.1:3000/users/7?fields=name'
// {"id":"7","fields":"name"}
// $ curl -s --json '{"name":"Ada"}' 127.0.0.1:3000/users
// {"name":"Ada"}
// $ curl -s -H 'content-type: text/plain' -d '{"name":"Ada"}' 127.0.0.1:3000/users
// {"error":"Expected a JSON body with Content-Type: application/json, got \"text/plain\"","code":"VELOX_ERR_UNSUPPORTED_MEDIA_TYPE"}
// $ curl -s -H 'content-type: text/plain' -d '{"event":"view"}' 127.0.0.1:3000/beacon
// {"event":"view"}
// #endregion

// The Velox side of docs/migrating-from-express.md, as one app.
// $ pnpm exec tsx docs/examples/migrating-from-express/app.ts
// up on http://localhost:3000
// #region listen
import { Server } from '@velox/core';

const app = new Server({ trustProxy: 1 }); // was app.set('trust proxy', 1)
// #endregion

// #region node-compat
import { nodeCompat } from '@velox/express';

await app.register(nodeCompat); // Express middlewares and (err, req, res, next) run from here on
// #endregion

// #region bodies
app.post('/notes', async (req, res) => res.status(201).json(await req.json()));
// #endregion

// #region router
import { Router } from '@velox/router';

const users = new Router();
users.get('/:id', (req, res) => res.json({ id: req.params.id }));
app.use('/users', users);
// #endregion

// #region errors
app.setErrorHandler((err, req, res) => res.status(err.status ?? 500).json({ error: err.message }));
app.setNotFoundHandler((req, res) => res.status(404).json({ error: 'not found' }));
// #endregion

// #region listen-call
const { port } = await app.listen(Number(process.env.PORT ?? 3000)); // a promise; port 0 picks a free port
console.log(`up on http://localhost:${port}`);
process.once('SIGTERM', async () => {
  await app.close({ timeout: 5000 }); // graceful: lets requests in progress finish
  process.exit(0);
});
// #endregion

// #region try
// $ curl -s --json '{"text":"hi"}' 127.0.0.1:3000/notes
// {"text":"hi"}
// $ curl -s -d 'text=hi' 127.0.0.1:3000/notes
// {"error":"Expected a JSON body with Content-Type: application/json, got \"application/x-www-form-urlencoded\""}
// $ curl -s 127.0.0.1:3000/users/7/
// {"id":"7"}
// $ curl -s 127.0.0.1:3000/nowhere
// {"error":"not found"}
// #endregion

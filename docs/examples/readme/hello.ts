// The example at the top of the root README.md.
// $ pnpm exec tsx docs/examples/readme/hello.ts
// listening on http://127.0.0.1:3000
// #region app
import { Server } from '@velox/core';

const app = new Server({ maxBodyLength: 1024 * 1024 });
app.use((req, res, next) => { res.set('x-request-id', crypto.randomUUID()); next(); });
app.get('/', (req, res) => res.send('Hi'));
app.get('/users/:id', (req, res) => res.json({ id: req.params.id, tab: req.query.tab }));
app.post('/echo', async (req, res) => res.json(await req.json()));
const { port } = await app.listen(Number(process.env.PORT ?? 3000));
console.log(`listening on http://127.0.0.1:${port}`);
// #endregion

// $ curl -s 127.0.0.1:3000/
// Hi
// $ curl -s '127.0.0.1:3000/users/42?tab=a'
// {"id":"42","tab":"a"}
// $ curl -s --json '{"a":1}' 127.0.0.1:3000/echo
// {"a":1}

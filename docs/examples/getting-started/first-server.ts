// $ pnpm exec tsx docs/examples/getting-started/first-server.ts
// http://127.0.0.1:3000
import { Server } from '@velox/core';

const app = new Server();
app.get('/', (req, res) => res.send('Hi'));
app.get('/hello/:name', (req, res) => res.json({ hello: req.params.name, lang: req.query.lang ?? 'en' }));

const { port } = await app.listen(Number(process.env.PORT ?? 3000), '127.0.0.1');
console.log(`http://127.0.0.1:${port}`);

// #region try
// $ curl -s 127.0.0.1:3000/
// Hi
// $ curl -s '127.0.0.1:3000/hello/ada?lang=fr'
// {"hello":"ada","lang":"fr"}
// $ curl -s 127.0.0.1:3000/hello/ada/
// {"hello":"ada","lang":"en"}
// #endregion

// The example server behind `pnpm start`: a few routes showing the core API.
import { Server } from '@velox/core';

const app = new Server({ maxBodyLength: 1024 * 1024 });
app.use((req, res, next) => {
  res.set('x-powered-by', 'velox');
  next();
});
app.get('/', (req, res) => res.send('Hi'));
app.get('/id/:id', (req, res) => res.send(`${req.params.id} ${req.query.name ?? ''}`));
app.post('/json', async (req, res) => res.json(await req.json()));

const port = Number(process.env.PORT ?? 3000);
const { port: bound } = await app.listen(port, process.env.HOST ?? '127.0.0.1');
console.log(`Velox listening on http://127.0.0.1:${bound}`);

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    app.close({ timeout: 5000 }).then(() => process.exit(0));
  });
}

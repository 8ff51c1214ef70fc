// The example server behind `pnpm start`: a few routes showing the core API.
// PORT and HOST come from the environment (default 3000 on 127.0.0.1).
import { Server } from '@velox/core';

const app = new Server({ maxBodyLength: 1024 * 1024 });
app.use((req, res, next) => {
  res.set('x-powered-by', 'velox');
  next();
});
app.get('/', (req, res) => res.send('Hi'));
app.get('/id/:id', (req, res) => res.send(`${req.params.id} ${req.query.name ?? ''}`));
app.post('/json', async (req, res) => res.json(await req.json()));

// SIGINT/SIGTERM: stop accepting, finish in-flight requests (up to 5 s), exit 0. Ctrl-C twice exits at once.
app.closeOnSignals({ timeout: 5000 });

const host = process.env.HOST ?? '127.0.0.1';
const { port } = await app.listen(Number(process.env.PORT ?? 3000), host);
console.log(`Velox listening on http://${host}:${port}`);

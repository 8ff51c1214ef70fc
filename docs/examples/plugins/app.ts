// An app that installs the three plugins of docs/plugins.md.
// $ pnpm exec tsx docs/examples/plugins/app.ts
// http://127.0.0.1:3000
// #region code
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Server } from '@velox/core';
import { accessLog } from './access-log.ts';
import { health } from './health.ts';
import { requestTimer } from './request-timer.ts';

const app = new Server();
await app.register(requestTimer, { slowMs: 200 });
await app.register(accessLog, { path: join(tmpdir(), 'velox-access.log') });
await app.register(health);
app.get('/', (req, res) => res.send(`Hi, ${Math.round(req.startedAt) >= 0 ? 'timed' : 'untimed'}`));

const { port } = await app.listen(Number(process.env.PORT ?? 3000), '127.0.0.1');
console.log(`http://127.0.0.1:${port}`);
process.once('SIGTERM', () => app.close().then(() => process.exit(0)));
// #endregion

// #region try
// $ curl -s 127.0.0.1:3000/healthz
// {"ok":true}
// $ curl -s 127.0.0.1:3000/
// Hi, timed
// #endregion

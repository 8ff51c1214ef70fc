import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { exitCode, run } from '@velox/test-utils';
import { describe, expect, it } from 'vitest';

const here = dirname(fileURLToPath(import.meta.url));

/** An express() app with body parsing, static files, sendFile and a view: after close() nothing keeps the process alive. */
const SCRIPT = `
import express from '@velox/express';
const app = express();
app.use(express.json());
app.use('/static', express.static(process.cwd()));
app.get('/file', (req, res) => res.sendFile(${JSON.stringify(join(here, 'exit.test.ts'))}));
app.post('/', (req, res) => res.json(req.body));
const server = app.listen(0, '127.0.0.1', async () => {
  const base = 'http://127.0.0.1:' + server.address().port;
  await (await fetch(base + '/', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"a":1}' })).text();
  await (await fetch(base + '/file')).text();
  await (await fetch(base + '/static/package.json')).text();
  server.close(() => console.log('closed'));
});
`;

describe('express() after server.close()', () => {
  it('lets the process exit on its own', async () => {
    const child = run({ script: SCRIPT }, {}, { cwd: join(here, '../..') });
    const code = await exitCode(child, 10_000);
    expect(child.output()).toContain('closed');
    expect(code).toBe(0);
  });
});

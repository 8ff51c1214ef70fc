import { join } from 'node:path';
import { exitCode, run } from '@velox/test-utils';
import { describe, expect, it } from 'vitest';
import { tree } from './helpers.ts';

/** Runs a script in a child process; resolves with its exit code, or 'hung' if it is still running after `limit` ms. */
function runScript(script: string, limit = 15_000): Promise<number | null | 'hung'> {
  return exitCode(run({ script }, {}, { cwd: join(import.meta.dirname, '..') }), limit);
}

describe('app.close()', () => {
  it('stops the watcher of serveStatic: the process exits on its own', async () => {
    const root = await tree({ 'a.txt': 'a', 'sub/b.txt': 'b' });
    const code = await runScript(`
      import { Server } from '@velox/core';
      import { serveStatic } from './src/index.ts';
      const app = new Server({ logger: false });
      const files = serveStatic(${JSON.stringify(root)});
      app.use('/s', files);
      await files.ready();
      const { port } = await app.listen(0, '127.0.0.1');
      const r = await fetch('http://127.0.0.1:' + port + '/s/sub/b.txt');
      if ((await r.text()) !== 'b') process.exit(2);
      await app.close();
    `);
    expect(code).toBe(0);
  });

  it('LiveDirectory.close() stops its watcher: the process exits on its own', async () => {
    const root = await tree({ 'a.html': 'a' });
    const code = await runScript(`
      import { LiveDirectory } from './src/index.ts';
      const views = new LiveDirectory(${JSON.stringify(root)});
      await views.ready();
      if (views.get('/a.html')?.content.toString() !== 'a') process.exit(2);
      await views.close();
    `);
    expect(code).toBe(0);
  });
});

import { exitCode, run } from '@velox/test-utils';
import { describe, expect, it } from 'vitest';

/** The milliseconds a fixture took to exit after its last step (it prints EXIT <ms>). */
function exitDelay(output: string): number {
  return Number(/^EXIT (\d+)$/m.exec(output)?.[1] ?? Number.NaN);
}

describe('the process of an app served by Node', () => {
  it('exits on its own once the Node server is closed (http.createServer(app))', async () => {
    const child = run(new URL('./fixtures/node-server.ts', import.meta.url));
    expect(await exitCode(child, 30_000)).toBe(0);
    expect(child.stdout()).toMatch(/^STATUS 200,200,404,200,200,404\nEXIT \d+\n$/);
    // An inject socket or a connection left open would hold it (uWS keeps an idle connection 10 s).
    expect(exitDelay(child.stdout())).toBeLessThan(5000);
  });

  it('exits on its own after supertest(app) and supertest(app.listen()), with nothing closed by hand', async () => {
    const child = run(new URL('./fixtures/supertest-only.ts', import.meta.url));
    expect(await exitCode(child, 30_000)).toBe(0);
    expect(child.stdout()).toMatch(/^STATUS 201,201,201,201\nEXIT \d+\n$/);
    expect(exitDelay(child.stdout())).toBeLessThan(5000);
  });
});

import { listen } from '@velox/test-utils';
import timeout from 'connect-timeout';
import { describe, expect, it } from 'vitest';
import { server } from './helpers.ts';

declare module '@velox/core' {
  interface Request {
    timedout?: boolean;
    clearTimeout?: () => void;
  }
}

describe('connect-timeout', () => {
  it('answers 503 when the handler takes longer than the timeout, and sets req.timedout', async () => {
    const app = server();
    const states: boolean[] = [];
    app.use(timeout('100ms'));
    app.get('/slow', (req, res) => {
      req.on('timeout', () => states.push(req.timedout === true));
      // Never answers: only the timeout does.
    });
    app.get('/fast', (req, res) => res.send(`timedout=${req.timedout}`));
    const url = await listen(app);
    const slow = await fetch(`${url}/slow`);
    expect(slow.status).toBe(503);
    expect(states).toEqual([true]);
    expect(await (await fetch(`${url}/fast`)).text()).toBe('timedout=false');
  });

  it("with respond: false, leaves the answer to the handler's own timeout listener; clearTimeout() stops the timer", async () => {
    const app = server();
    app.use(timeout('50ms', { respond: false }));
    app.get('/own', (req, res) => {
      req.on('timeout', () => res.status(504).send('gave up'));
    });
    app.get('/cleared', (req, res) => {
      req.clearTimeout!();
      setTimeout(() => res.send(`still here, timedout=${req.timedout}`), 150);
    });
    const url = await listen(app);
    const own = await fetch(`${url}/own`);
    expect([own.status, await own.text()]).toEqual([504, 'gave up']);
    expect(await (await fetch(`${url}/cleared`)).text()).toBe('still here, timedout=false');
  });
});

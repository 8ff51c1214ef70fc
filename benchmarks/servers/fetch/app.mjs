// The one Hono app every server of the fetch suite runs (raw uWS answers the same routes by
// hand): ping (GET / → `Hi`), query (GET /id/:id?name=… → JSON { id, name } with the header
// `x-powered: velox-bench`) and body (POST /json → the parsed JSON, re-serialized).
import { Hono } from 'hono';

/** The Hono app with the routes of one scenario (`fetch-ping`, `fetch-query`, `fetch-body`). */
export function honoApp(scenario) {
  const app = new Hono();
  // fetch-idle (the idle-connection probe) answers like ping.
  if (scenario === 'fetch-ping' || scenario === 'fetch-idle') app.get('/', (c) => c.text('Hi'));
  if (scenario === 'fetch-query') {
    app.get('/id/:id', (c) => {
      c.header('x-powered', 'velox-bench');
      return c.json({ id: c.req.param('id'), name: c.req.query('name') });
    });
  }
  if (scenario === 'fetch-body') {
    app.post('/json', async (c) => {
      let value;
      try {
        value = await c.req.json();
      } catch {
        return c.text('invalid body', 400);
      }
      return c.json(value);
    });
  }
  return app;
}

export const SCENARIO_NAMES = ['fetch-ping', 'fetch-query', 'fetch-body', 'fetch-idle'];

/** The server-kit `scenarios` map: each scenario builds the Hono app into the holder. */
export function honoScenarios() {
  return Object.fromEntries(SCENARIO_NAMES.map((name) => [name, (holder) => void (holder.app = honoApp(name))]));
}

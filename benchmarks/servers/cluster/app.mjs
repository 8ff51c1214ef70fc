// The app every server of the cluster suite runs: the single process (velox-single.mjs) and each
// worker of a cluster (velox-1.mjs, velox-2.mjs). BENCH_SCENARIO names what to add; every
// variant also answers GET /__worker with its worker id (0 for the single process).
import { Server } from '@velox/core';

const worker = process.env.VELOX_WORKER_ID ?? '0';

const scenarios = {
  'cluster-ping'(app) {
    app.get('/', (_req, res) => res.send('Hi'));
  },
  'cluster-query'(app) {
    app.get('/id/:id', (req, res) => {
      res.set('x-powered', 'velox-bench');
      res.send(`${req.params.id} ${req.query.name}`);
    });
  },
  // The probe: GET / counts what this worker answered, GET /__stats tells the count.
  'cluster-spread'(app) {
    let requests = 0;
    app.get('/', (_req, res) => {
      requests++;
      res.send('Hi');
    });
    app.get('/__stats', (_req, res) => res.json({ worker, requests }));
  },
};

export const SCENARIO_NAMES = Object.keys(scenarios);

export default function createApp() {
  const name = process.env.BENCH_SCENARIO;
  const add = scenarios[name];
  if (!add) throw new Error(`unknown scenario ${JSON.stringify(name)}; this app implements ${SCENARIO_NAMES.join(', ')}`);
  const app = new Server({ logger: false });
  add(app);
  app.get('/__worker', (_req, res) => res.send(worker));
  return app;
}

// Starts app.mjs in a @velox/cluster of `workers` processes on 127.0.0.1 and prints `PORT <n>`
// (the runner's protocol: `node velox-<n>.mjs <scenario> [port]`, `--list`). SIGTERM from the
// runner drains and stops every worker, then this process.
import { cluster } from '@velox/cluster';
import { assertNativeUws } from '../../lib/server-kit.mjs';
import { SCENARIO_NAMES } from './app.mjs';

export async function start(workers) {
  const [name, portArg] = process.argv.slice(2);
  if (name === '--list') {
    process.stdout.write(`${JSON.stringify(SCENARIO_NAMES)}\n`);
    return;
  }
  if (!SCENARIO_NAMES.includes(name)) {
    process.stderr.write(`unknown scenario ${JSON.stringify(name)}; this server implements: ${SCENARIO_NAMES.join(', ')}\n`);
    process.exit(2);
  }
  assertNativeUws(import.meta.url, '@velox/core');
  const running = await cluster({
    entry: new URL('./app.mjs', import.meta.url),
    workers,
    port: Number(portArg ?? process.env.PORT ?? 0),
    host: '127.0.0.1',
    env: { BENCH_SCENARIO: name },
    timeout: 2000,
    logger: { error: console.error, warn: console.error }, // no info lines on stdout
  });
  process.stdout.write(`PORT ${running.port}\n`);
}

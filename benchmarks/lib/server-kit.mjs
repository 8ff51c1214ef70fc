// Shared start-up code for the files in servers/. Each server file describes
// how to build an app, how to add each scenario to it and how to listen; this
// module handles the command line, the native uWS check and the `PORT` line the
// runner waits for.
//
//   node servers/<fw>.mjs --list            prints the scenarios it implements (JSON)
//   node servers/<fw>.mjs <scenario> [port] starts the server, prints `PORT <n>`

import { createRequire } from 'node:module';

/**
 * Exits the process (status 3) unless the uWebSockets.js module that
 * `framework` loads is the native binary. The registry build of uWS quietly
 * falls back to a pure-JS imitation when its binary does not load; measuring
 * that by accident would be meaningless, so every uWS-based server calls this.
 *
 * @param {string} fromUrl  import.meta.url of the server file
 * @param {string|null} framework  package whose copy of uWS to check (null: the
 *   server's own dependency)
 */
export function assertNativeUws(fromUrl, framework = null) {
  const local = createRequire(fromUrl);
  const base = framework ? createRequire(local.resolve(framework)) : local;
  const where = base.resolve('uWebSockets.js');
  const uws = base('uWebSockets.js');
  if (typeof uws.App !== 'function' || !String(uws.App).includes('[native code]')) {
    process.stderr.write(
      `uWebSockets.js at ${where} is not the native binary (JS fallback loaded); refusing to run a benchmark on it.\n`,
    );
    process.exit(3);
  }
  return uws;
}

/**
 * @param {object} def
 * @param {Record<string, (app: any) => void>} def.scenarios  adds one scenario's routes to the app
 * @param {(scenario: string) => any | Promise<any>} def.create  builds an empty app
 * @param {(app: any, port: number) => Promise<number>} def.listen  listens on 127.0.0.1, resolves to the bound port
 * @param {() => void} [def.check]  run before start-up (e.g. assertNativeUws)
 */
export async function serve(def) {
  const [arg, portArg] = process.argv.slice(2);
  const names = Object.keys(def.scenarios);

  if (arg === '--list') {
    process.stdout.write(`${JSON.stringify(names)}\n`);
    return;
  }
  if (!arg || !names.includes(arg)) {
    process.stderr.write(`unknown scenario ${JSON.stringify(arg)}; this server implements: ${names.join(', ')}\n`);
    process.exit(2);
  }

  process.on('unhandledRejection', (err) => {
    process.stderr.write(`unhandled rejection: ${err?.stack ?? err}\n`);
    process.exit(1);
  });

  def.check?.();
  const app = await def.create(arg);
  def.scenarios[arg](app);
  const port = await def.listen(app, Number(portArg ?? process.env.PORT ?? 0));
  if (!Number.isInteger(port) || port <= 0) {
    process.stderr.write(`could not determine the listening port (got ${port})\n`);
    process.exit(1);
  }
  process.stdout.write(`PORT ${port}\n`);
}

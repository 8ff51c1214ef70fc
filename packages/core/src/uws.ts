/**
 * The only file that knows which package provides uWebSockets.js.
 *
 * The registry build we depend on silently replaces its native binary with a slow
 * JavaScript imitation when the binary fails to load. Velox refuses to run on it.
 */
import { createRequire } from 'node:module';
import { ErrorCodes, VeloxError } from './errors.ts';

/** The uWebSockets.js module, as typed by its own declarations. */
export type Uws = typeof import('uWebSockets.js');

const PACKAGE = 'uWebSockets.js';
let loaded: Uws | undefined;

/**
 * Loads uWebSockets.js once and checks that its native binary is in use.
 * @throws VeloxError `VELOX_ERR_UWS_FALLBACK` when the JavaScript fallback was loaded.
 */
export function loadUws(): Uws {
  if (loaded) return loaded;
  // Official builds read this at load time; Node accepts 16 KB of headers, so do we.
  process.env.UWS_HTTP_MAX_HEADERS_SIZE ??= '16384';
  const require = createRequire(import.meta.url);
  const warnings: string[] = [];
  const warn = console.warn;
  const log = console.log;
  // The fallback announces itself on the console; capture that text for our error.
  console.warn = console.log = (...args: unknown[]) => {
    warnings.push(args.map(String).join(' '));
  };
  let uws: Uws;
  try {
    uws = require(PACKAGE) as Uws;
  } catch (cause) {
    throw fallbackError(`it could not be loaded: ${(cause as Error).message}`, cause);
  } finally {
    console.warn = warn;
    console.log = log;
  }
  if (!isNative(uws)) {
    const reason = warnings.join(' ').replace(/\s+/g, ' ').trim();
    throw fallbackError(`its JavaScript fallback was loaded instead of the native binary${reason ? ` (${reason})` : ''}`);
  }
  for (const line of warnings) warn(line);
  loaded = uws;
  return uws;
}

/** True when `App` is a native function, as it is in every real uWebSockets.js binary. */
function isNative(uws: Uws): boolean {
  return typeof uws?.App === 'function' && Function.prototype.toString.call(uws.App).includes('[native code]');
}

function fallbackError(why: string, cause?: unknown): VeloxError {
  const { platform, arch } = process;
  const abi = process.versions.modules;
  return new VeloxError(
    ErrorCodes.UWS_FALLBACK,
    `Velox needs the native uWebSockets.js binary for ${platform}-${arch}, Node ABI ${abi} (Node ${process.version}), but ${why}. ` +
      'Install a build that ships this binary and point every dependency at it with your package manager\'s overrides, ' +
      'e.g. in pnpm-workspace.yaml: `overrides: { "uWebSockets.js": "github:uNetworking/uWebSockets.js#v20.52.0" }` ' +
      '(npm and yarn: "overrides" / "resolutions" in package.json). See the @velox/core README, "uWebSockets.js".',
    { cause },
  );
}

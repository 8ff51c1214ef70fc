// The suites of suites/index.mjs, checked and joined into one id space: every framework id and
// every scenario or probe name is unique across suites (a clash stops the runner with a message
// naming both suites). See README.md, "Suites", for what each field means.

import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ALIASES, FRAMEWORKS } from '../frameworks.mjs';
import { SUITES } from '../suites/index.mjs';

const BENCH_DIR = path.dirname(path.dirname(fileURLToPath(import.meta.url)));

/**
 * @typedef {object} Framework
 * @property {string} id          name in BENCH_FRAMEWORKS, results.json and `servers`
 * @property {string} label       name in the tables
 * @property {string} [file]      default server file under servers/ (scenarios without `servers`)
 * @property {string} [pkg]       package whose version is reported
 * @property {string[]} [nodeArgs] extra arguments for node
 * @property {'node' | 'bun'} [runtime] what runs the server file (default node; bun: the binary of @oven/bun-linux-x64)
 * @property {boolean} [optIn]    left out unless named in BENCH_FRAMEWORKS
 *
 * @typedef {object} Request
 * @property {string} method
 * @property {string} path
 * @property {Record<string, string>} [headers]
 * @property {string} [body]          a small body, inline
 * @property {string} [bodyFile]      a file holding the body (absolute, or relative to benchmarks/)
 * @property {string} [contentType]
 *
 * @typedef {object} LoadContext
 * @property {number} port
 * @property {string} url            http://127.0.0.1:<port>
 * @property {number} seconds        how long to load (the slice, or the warm-up)
 * @property {number | null} cpu     CPU to pin the load generator to (null: `pin: false`)
 * @property {Record<string, string>} headers  the request's headers plus those from `setup`
 * @property {boolean} warmup        true for the unrecorded warm-up
 * @property {object} scenario
 *
 * @typedef {object} Scenario
 * @property {string} name
 * @property {string} summary
 * @property {Record<string, string>} [servers]  framework id -> server file under servers/
 * @property {string} [baseline]     framework id the ratios are against (default 'uws')
 * @property {Request} [request]     what wrk sends and the check fetches
 * @property {object} [expect]       the correct answer to `request`
 * @property {{ request: Request, expect: object, skipFor?: string[] }[]} [extraChecks]  further checks; `skipFor`: framework ids they do not apply to
 * @property {(ctx: { port: number, url: string }) => Promise<{ headers?: Record<string, string> } | undefined>} [setup]
 * @property {(ctx: { port: number, url: string, headers: Record<string, string> }) => Promise<void>} [check]
 * @property {{ measure: (ctx: LoadContext) => Promise<{ rps: number, requests?: number } & Record<string, number>> }} [load]
 * @property {string} [unit]         label of `rps` (default 'req/s')
 * @property {string[]} [extraFigures] further per-slice figures to show (e.g. 'mbps')
 * @property {boolean} [pin]         false: neither the server nor the load generator is pinned
 *
 * @typedef {object} ProbeContext
 * @property {{ id: string, label: string, file?: string }[]} frameworks  the probe's servers that this run selects
 * @property {(id: string, options?: { args?: string[], env?: NodeJS.ProcessEnv, pin?: boolean }) => Promise<ProbeServer>} start
 * @property {number} serverCpu
 * @property {number} clientCpu
 * @property {string} runDir
 * @property {(message: string) => void} log
 *
 * @typedef {object} ProbeServer
 * @property {number} port
 * @property {string} url
 * @property {number} pid
 * @property {() => number} rssMiB       VmRSS summed over the server's process tree
 * @property {() => number} cpuMicros    CPU time so far over the server's process tree
 * @property {() => Promise<void>} stop
 *
 * @typedef {object} Probe
 * @property {string} name
 * @property {string} title
 * @property {Record<string, string>} [servers]  framework id -> server file (started with the probe's name)
 * @property {(ctx: ProbeContext) => Promise<{ columns: string[], rows: (string | number)[][], notes?: string }>} run
 * @property {(ctx: { id: string, port: number, url: string }) => Promise<void>} [check]
 *
 * @typedef {object} Target
 * @property {string} label
 * @property {[string, string]} a    [scenario, framework id]
 * @property {[string, string]} b
 * @property {number} [min]
 * @property {boolean} [strict]
 * @property {string} [issue]        first column of the targets table (default: the suite's name)
 *
 * @typedef {object} Suite
 * @property {string} name
 * @property {string} title
 * @property {Framework[]} [frameworks]
 * @property {Scenario[]} scenarios
 * @property {Target[]} [targets]
 * @property {Target[]} [references]
 * @property {string} [referencesNote]  paragraph above the references table
 * @property {Probe[]} [probes]
 */

class SuiteError extends Error {}

function need(condition, message) {
  if (!condition) throw new SuiteError(message);
}

function checkServerFile(where, file) {
  need(typeof file === 'string' && file !== '', `${where}: the server file must be a path under servers/`);
  need(existsSync(path.join(BENCH_DIR, 'servers', file)), `${where}: servers/${file} does not exist`);
}

/**
 * Checks every suite and joins them: all frameworks (FRAMEWORKS first, then each suite's extra
 * ones in suite order), every scenario and probe with its suite's name attached.
 * Throws a SuiteError naming the suite and field when something is wrong.
 */
export function loadSuites(suites = SUITES) {
  const frameworks = FRAMEWORKS.map((f) => ({ ...f, suite: 'core' }));
  const fwOwner = new Map(frameworks.map((f) => [f.id, 'frameworks.mjs']));
  const names = new Map();
  const suiteNames = new Set();
  const scenarios = [];
  const probes = [];

  for (const suite of suites) {
    need(suite && typeof suite.name === 'string' && /^[a-z0-9][a-z0-9-]*$/.test(suite.name), `a suite has no valid name (lower-case letters, digits, '-'): ${JSON.stringify(suite?.name)}`);
    need(!suiteNames.has(suite.name), `two suites are named "${suite.name}"`);
    suiteNames.add(suite.name);
    const at = `suite "${suite.name}"`;
    need(typeof suite.title === 'string', `${at}: title must be a string`);
    for (const field of ['frameworks', 'scenarios', 'targets', 'references', 'probes']) {
      need(suite[field] === undefined || Array.isArray(suite[field]), `${at}: ${field} must be an array`);
    }
    for (const f of suite.frameworks ?? []) {
      need(f && typeof f.id === 'string' && f.id !== '' && typeof f.label === 'string', `${at}: every framework needs an id and a label`);
      need(!fwOwner.has(f.id) && !(f.id in ALIASES), `${at}: framework id "${f.id}" is already used by ${fwOwner.get(f.id) ?? 'an alias in frameworks.mjs'}`);
      if (f.file !== undefined) checkServerFile(`${at}, framework ${f.id}`, f.file);
      fwOwner.set(f.id, at);
      frameworks.push({ ...f, suite: suite.name });
    }
  }

  const known = new Set(frameworks.map((f) => f.id));
  const claim = (name, where) => {
    need(typeof name === 'string' && /^[A-Za-z0-9][\w.-]*$/.test(name), `${where}: invalid name ${JSON.stringify(name)} (letters, digits, '.', '_', '-')`);
    need(!names.has(name), `${where}: the name "${name}" is already used by ${names.get(name)}`);
    names.set(name, where);
  };

  for (const suite of suites) {
    const at = `suite "${suite.name}"`;
    for (const s of suite.scenarios ?? []) {
      const where = `${at}, scenario "${s?.name}"`;
      claim(s?.name, `${at}, scenario`);
      need(typeof s.summary === 'string', `${where}: summary must be a string`);
      if (s.servers !== undefined) {
        need(s.servers && typeof s.servers === 'object' && Object.keys(s.servers).length > 0, `${where}: servers must map framework ids to files`);
        for (const [id, file] of Object.entries(s.servers)) {
          need(known.has(id), `${where}: unknown framework "${id}" in servers (add it to the suite's frameworks)`);
          checkServerFile(`${where}, server ${id}`, file);
        }
      }
      const baseline = s.baseline ?? 'uws';
      need(known.has(baseline), `${where}: unknown baseline "${baseline}"`);
      need(!s.servers || baseline in s.servers, `${where}: the baseline "${baseline}" is not one of its servers`);
      need(s.load === undefined || typeof s.load?.measure === 'function', `${where}: load must be { measure: async (ctx) => ({ rps }) }`);
      need(s.request !== undefined || s.load !== undefined, `${where}: needs a request (wrk) or a load.measure`);
      if (s.request !== undefined) {
        const r = s.request;
        need(typeof r.method === 'string' && typeof r.path === 'string' && r.path.startsWith('/'), `${where}: request needs a method and a path starting with /`);
        need(r.body === undefined || typeof r.body === 'string', `${where}: request.body must be a string (use bodyFile for bytes)`);
        need(!(r.body !== undefined && r.bodyFile !== undefined), `${where}: request has both body and bodyFile`);
        if (r.bodyFile !== undefined) need(existsSync(path.resolve(BENCH_DIR, r.bodyFile)), `${where}: request.bodyFile ${r.bodyFile} does not exist`);
        for (const [name, value] of Object.entries(r.headers ?? {})) {
          need(/^[!#$%&'*+.^`|~\w-]+$/.test(name) && typeof value === 'string' && !/[\r\n]/.test(value), `${where}: bad request header ${JSON.stringify(name)}`);
        }
      }
      for (const fn of ['setup', 'check']) need(s[fn] === undefined || typeof s[fn] === 'function', `${where}: ${fn} must be a function`);
      need(s.unit === undefined || typeof s.unit === 'string', `${where}: unit must be a string`);
      need(s.extraFigures === undefined || (Array.isArray(s.extraFigures) && s.extraFigures.every((x) => typeof x === 'string')), `${where}: extraFigures must be an array of figure names`);
      need(s.pin === undefined || typeof s.pin === 'boolean', `${where}: pin must be true or false`);
      scenarios.push({ ...s, suite: suite.name, baseline, unit: s.unit ?? 'req/s', extraFigures: s.extraFigures ?? [], pin: s.pin !== false });
    }
    for (const p of suite.probes ?? []) {
      const where = `${at}, probe "${p?.name}"`;
      claim(p?.name, `${at}, probe`);
      need(typeof p.title === 'string', `${where}: title must be a string`);
      need(typeof p.run === 'function', `${where}: run must be an async function returning { columns, rows, notes }`);
      need(p.check === undefined || typeof p.check === 'function', `${where}: check must be a function`);
      for (const [id, file] of Object.entries(p.servers ?? {})) {
        need(known.has(id), `${where}: unknown framework "${id}" in servers`);
        checkServerFile(`${where}, server ${id}`, file);
      }
      probes.push({ ...p, suite: suite.name, servers: p.servers ?? {} });
    }
  }

  // Targets may compare scenarios of any suite; a typo should not show up as "not measured".
  for (const suite of suites) {
    for (const field of ['targets', 'references']) {
      for (const t of suite[field] ?? []) {
        const where = `suite "${suite.name}", ${field.slice(0, -1)} "${t?.label}"`;
        need(typeof t?.label === 'string', `suite "${suite.name}": every ${field.slice(0, -1)} needs a label`);
        for (const side of [t.a, t.b]) {
          need(Array.isArray(side) && side.length === 2, `${where}: a and b must be [scenario, framework id]`);
          need(scenarios.some((s) => s.name === side[0]), `${where}: unknown scenario "${side[0]}"`);
          need(known.has(side[1]), `${where}: unknown framework "${side[1]}"`);
        }
      }
    }
  }

  return { suites, frameworks, scenarios, probes };
}

/** The framework with this id (or one of the aliases of frameworks.mjs), undefined if none. */
export function findFramework(frameworks, id) {
  const key = ALIASES[id] ?? id;
  return frameworks.find((f) => f.id === key);
}

/**
 * Who takes part in a scenario (before BENCH_FRAMEWORKS), in the order of its rows: with
 * `servers`, exactly those ids with those files, in the order `servers` lists them; without, the frameworks of frameworks.mjs plus the suite's own frameworks that
 * have a default file, each asked with `--list` whether it implements the scenario.
 * Each entry: the framework with `file` set to the server file to run, and `listed` true when
 * the runner has to ask the file with `--list`.
 */
export function participants(scenario, frameworks) {
  if (scenario.servers) {
    return Object.entries(scenario.servers).map(([id, file]) => ({ ...frameworks.find((f) => f.id === id), file, listed: false }));
  }
  return frameworks
    .filter((f) => f.file !== undefined && (f.suite === 'core' || f.suite === scenario.suite))
    .map((f) => ({ ...f, listed: true }));
}

export { SuiteError };

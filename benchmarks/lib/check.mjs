// One-off correctness check of a server's answer, made before it is loaded.
import { readFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { isDeepStrictEqual } from 'node:util';

const BENCH_DIR = path.dirname(path.dirname(fileURLToPath(import.meta.url)));

/** Absolute path of a request's `bodyFile` (relative paths are relative to benchmarks/). */
export function bodyFilePath(request) {
  return request.bodyFile === undefined ? undefined : path.resolve(BENCH_DIR, request.bodyFile);
}

/** The bytes of a request's body (`body`, or the file named by `bodyFile`), undefined if none. */
export function requestBody(request) {
  if (request.bodyFile !== undefined) return readFileSync(bodyFilePath(request));
  return request.body === undefined ? undefined : Buffer.from(request.body);
}

/**
 * Sends one request on a fresh connection (closed afterwards). `extraHeaders` (e.g. a session
 * cookie from a scenario's `setup`) are added to the request's own `headers`.
 */
export function send(port, request, timeoutMs = 5000, extraHeaders = {}) {
  return new Promise((resolve, reject) => {
    const body = requestBody(request);
    const headers = { ...request.headers, ...extraHeaders };
    const has = (name) => Object.keys(headers).some((h) => h.toLowerCase() === name);
    if (request.contentType !== undefined && !has('content-type')) headers['content-type'] = request.contentType;
    if (body !== undefined) {
      if (!has('content-type')) headers['content-type'] = 'application/octet-stream';
      headers['content-length'] = body.length;
    }
    const req = http.request(
      { host: '127.0.0.1', port, method: request.method, path: request.path, headers, agent: false },
      (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }),
        );
        res.on('error', reject);
      },
    );
    req.setTimeout(timeoutMs, () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    req.on('error', reject);
    req.end(body);
  });
}

/** Returns a list of problems (empty when the answer is correct). */
export function compare(answer, expect) {
  const problems = [];
  const status = expect.status ?? 200;
  if (answer.status !== status) problems.push(`status ${answer.status}, expected ${status}`);
  if (expect.body !== undefined && answer.body !== expect.body) {
    problems.push(`body ${JSON.stringify(answer.body.slice(0, 200))}, expected ${JSON.stringify(expect.body)}`);
  }
  if (expect.json !== undefined) {
    let parsed;
    try {
      parsed = JSON.parse(answer.body);
    } catch {
      problems.push(`body is not JSON: ${JSON.stringify(answer.body.slice(0, 200))}`);
    }
    if (parsed !== undefined && !isDeepStrictEqual(parsed, expect.json)) {
      problems.push(`JSON body ${JSON.stringify(parsed)}, expected ${JSON.stringify(expect.json)}`);
    }
  }
  if (expect.contentType !== undefined) {
    const ct = answer.headers['content-type'] ?? '';
    if (!ct.toLowerCase().startsWith(expect.contentType)) {
      problems.push(`content-type ${JSON.stringify(ct)}, expected ${expect.contentType}…`);
    }
  }
  for (const [name, value] of Object.entries(expect.headers ?? {})) {
    const got = answer.headers[name.toLowerCase()];
    if (got !== value) problems.push(`header ${name}: ${JSON.stringify(got)}, expected ${JSON.stringify(value)}`);
  }
  return problems;
}

/**
 * Checks the scenario's main request and its extra checks; throws on the first wrong answer.
 * `headers` (from the scenario's `setup`) go with every request. An extra check whose `skipFor`
 * names `fwId` is left out for that framework (a baseline that answers the main request alike
 * but lacks what the check is about, e.g. validation).
 */
export async function checkScenario(port, scenario, headers = {}, fwId = undefined) {
  const extra = (scenario.extraChecks ?? []).filter((c) => !c.skipFor?.includes(fwId));
  const cases = [{ request: scenario.request, expect: scenario.expect ?? {} }, ...extra];
  let first;
  for (const c of cases) {
    const answer = await send(port, c.request, 30_000, headers);
    const problems = compare(answer, c.expect);
    if (problems.length) {
      throw new Error(`wrong answer to ${c.request.method} ${c.request.path}: ${problems.join('; ')}`);
    }
    first ??= answer;
  }
  return first;
}

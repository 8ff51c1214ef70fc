// One-off correctness check of a server's answer, made before it is loaded.
import http from 'node:http';
import { isDeepStrictEqual } from 'node:util';

/** Sends one request on a fresh connection (closed afterwards). */
export function send(port, request, timeoutMs = 5000) {
  return new Promise((resolve, reject) => {
    const headers = {};
    if (request.body !== undefined) {
      headers['content-type'] = request.contentType ?? 'application/octet-stream';
      headers['content-length'] = Buffer.byteLength(request.body);
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
    req.end(request.body);
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

/** Checks the scenario's main request and its extra checks; throws on the first wrong answer. */
export async function checkScenario(port, scenario) {
  const cases = [{ request: scenario.request, expect: scenario.expect }, ...(scenario.extraChecks ?? [])];
  let first;
  for (const c of cases) {
    const answer = await send(port, c.request);
    const problems = compare(answer, c.expect);
    if (problems.length) {
      throw new Error(`wrong answer to ${c.request.method} ${c.request.path}: ${problems.join('; ')}`);
    }
    first ??= answer;
  }
  return first;
}

// The benchmark scenarios, kept as plain data so that the runner, the
// correctness checks and the README all read from one place.
//
// Adding a scenario:
//   1. add an entry below (the request wrk sends, and what a correct answer is);
//   2. implement it in each file under servers/ that should take part (a server
//      lists the scenarios it implements, the runner asks it with `--list` and
//      skips a framework for scenarios it does not declare).
//
// `request` is what wrk sends under load and what the one-off check fetches.
// `expect` describes the correct answer to it:
//   status       HTTP status (default 200)
//   body         exact text of the body, or
//   json         a value the body must parse to (compared structurally)
//   contentType  a prefix the content-type header must start with (optional)
//   headers      response headers that must be present with exactly these values
// `extraChecks` are further requests checked once before load (not measured),
// e.g. to prove that all routes of a large table are really registered.

export const JSON_PAYLOAD = { id: 123, name: 'velox', tags: ['a', 'b'], ok: true };

/** The POST of the `body` and `validated` scenarios. */
const JSON_REQUEST = { method: 'POST', path: '/json', contentType: 'application/json', body: JSON.stringify(JSON_PAYLOAD) };

export const ROUTE_COUNT = 1000;

export const MIDDLEWARE_COUNT = 5;

const middlewareHeaders = Object.fromEntries(
  Array.from({ length: MIDDLEWARE_COUNT }, (_, i) => [`x-mw-${i + 1}`, '1']),
);

export const SCENARIOS = [
  {
    name: 'ping',
    summary: 'GET / answers the text `Hi`.',
    request: { method: 'GET', path: '/' },
    expect: { status: 200, body: 'Hi' },
  },
  {
    name: 'query',
    summary:
      'GET /id/:id?name=… reads one path parameter and one query parameter, answers `<id> <name>` and sets the header `x-powered: velox-bench`.',
    request: { method: 'GET', path: '/id/123?name=velox' },
    expect: { status: 200, body: '123 velox', headers: { 'x-powered': 'velox-bench' } },
    extraChecks: [
      {
        request: { method: 'GET', path: '/id/abc?name=other' },
        expect: { status: 200, body: 'abc other', headers: { 'x-powered': 'velox-bench' } },
      },
    ],
  },
  {
    name: 'body',
    summary: `POST /json with a ${JSON.stringify(JSON_PAYLOAD).length}-byte JSON body; the server parses it and sends it back re-serialized as application/json.`,
    request: JSON_REQUEST,
    expect: { status: 200, json: JSON_PAYLOAD, contentType: 'application/json' },
    extraChecks: [
      {
        // A different payload, so an implementation that answers a constant fails.
        request: {
          method: 'POST',
          path: '/json',
          contentType: 'application/json',
          body: '{"n":[1,2,3],"s":"é"}',
        },
        expect: { status: 200, json: { n: [1, 2, 3], s: 'é' }, contentType: 'application/json' },
      },
    ],
  },
  {
    name: 'middleware',
    summary: `${MIDDLEWARE_COUNT} application-level middlewares each set one response header (x-mw-1 … x-mw-${MIDDLEWARE_COUNT}), then GET / answers \`Hi\`.`,
    request: { method: 'GET', path: '/' },
    expect: { status: 200, body: 'Hi', headers: middlewareHeaders },
  },
  {
    name: 'routes',
    summary: `${ROUTE_COUNT} static routes GET /route/0 … /route/${ROUTE_COUNT - 1} are registered; the request hits the last one.`,
    request: { method: 'GET', path: `/route/${ROUTE_COUNT - 1}` },
    expect: { status: 200, body: 'Hi' },
    extraChecks: [
      { request: { method: 'GET', path: '/route/0' }, expect: { status: 200, body: 'Hi' } },
      { request: { method: 'GET', path: '/route/500' }, expect: { status: 200, body: 'Hi' } },
    ],
  },
];

// Scenarios of the router and validate packages.
SCENARIOS.push(
  {
    name: 'flat',
    summary: 'GET /a/b/c/:id registered directly on the app answers the id: the reference for `nested`.',
    request: { method: 'GET', path: '/a/b/c/123' },
    expect: { status: 200, body: '123' },
    extraChecks: [{ request: { method: 'GET', path: '/a/b/c/xyz' }, expect: { status: 200, body: 'xyz' } }],
  },
  {
    name: 'nested',
    summary: 'The same route as `flat`, declared as GET /:id in a router mounted at /c, inside one at /b, inside one at /a.',
    request: { method: 'GET', path: '/a/b/c/123' },
    expect: { status: 200, body: '123' },
    extraChecks: [{ request: { method: 'GET', path: '/a/b/c/xyz' }, expect: { status: 200, body: 'xyz' } }],
  },
  {
    name: 'router-middleware',
    summary: `A router mounted at /r runs ${MIDDLEWARE_COUNT} router-scoped middlewares, each setting one header (x-mw-1 … x-mw-${MIDDLEWARE_COUNT}), then GET /r/hi answers \`Hi\`.`,
    request: { method: 'GET', path: '/r/hi' },
    expect: { status: 200, body: 'Hi', headers: middlewareHeaders },
  },
  {
    name: 'validated',
    summary:
      'POST /json with the `body` payload, checked against a schema (id: integer, name: string, tags: string[], ok: boolean) before it is echoed; an invalid body answers 400.',
    request: JSON_REQUEST,
    expect: { status: 200, json: JSON_PAYLOAD, contentType: 'application/json' },
    extraChecks: [
      {
        request: { method: 'POST', path: '/json', contentType: 'application/json', body: '{"id":"x","name":1,"tags":[],"ok":true}' },
        expect: { status: 400 },
      },
      {
        request: { method: 'POST', path: '/json', contentType: 'application/json', body: '{"id":7,"name":"n","tags":["t"],"ok":false}' },
        expect: { status: 200, json: { id: 7, name: 'n', tags: ['t'], ok: false }, contentType: 'application/json' },
      },
    ],
  },
);

export function scenarioByName(name) {
  return SCENARIOS.find((s) => s.name === name);
}

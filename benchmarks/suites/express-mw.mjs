// The express-mw suite: Express middlewares running unmodified on Velox (issue 16). One route
// behind express.json() and compression, for Velox, ultimate-express and Express; the body is
// small, so compression looks at it and passes it through uncompressed (under its 1 KB
// threshold). Velox's own body reader without middlewares is shown for reference.
import { JSON_PAYLOAD } from './core.mjs';

const BODY = JSON.stringify(JSON_PAYLOAD);
const REQUEST = {
  method: 'POST',
  path: '/json',
  contentType: 'application/json',
  // Clients that accept gzip make compression negotiate on every request.
  headers: { 'accept-encoding': 'gzip, deflate, br' },
  body: BODY,
};
const EXPECT = { status: 200, json: JSON_PAYLOAD, contentType: 'application/json' };

/** @type {import('../lib/suites.mjs').Suite} */
export default {
  name: 'express-mw',
  title: 'Express middlewares on Velox',
  frameworks: [{ id: 'velox-native', label: 'Velox (req.json(), no middlewares)', pkg: '@velox/core', nodeArgs: ['--conditions=built'] }],
  scenarios: [
    {
      name: 'express-mw',
      summary: `POST /json with a ${BODY.length}-byte JSON body and Accept-Encoding: gzip, through express.json() and compression (which passes the small answer through); the route answers res.json(req.body).`,
      servers: {
        velox: 'express-mw/velox.mjs',
        'ultimate-express': 'express-mw/ultimate-express.mjs',
        express: 'express-mw/express.mjs',
      },
      baseline: 'velox',
      request: REQUEST,
      expect: EXPECT,
      extraChecks: [
        {
          // A different payload, so an implementation that answers a constant fails.
          request: { ...REQUEST, body: '{"n":[1,2,3],"s":"é"}' },
          expect: { status: 200, json: { n: [1, 2, 3], s: 'é' }, contentType: 'application/json' },
        },
      ],
      // compression must have looked at the answer and left it alone: Vary, no Content-Encoding.
      check: async ({ url }) => {
        const res = await fetch(`${url}/json`, { method: 'POST', headers: { 'content-type': 'application/json', 'accept-encoding': 'gzip' }, body: BODY });
        await res.arrayBuffer();
        if (res.headers.get('content-encoding')) throw new Error(`a ${BODY.length}-byte answer was compressed`);
        if (!/accept-encoding/i.test(res.headers.get('vary') ?? '')) throw new Error('compression did not see the answer (no Vary: Accept-Encoding)');
      },
    },
    {
      name: 'express-mw-native',
      summary: 'The same request answered by Velox alone: res.json(await req.json()), no middlewares. What the two Express middlewares cost.',
      servers: { 'velox-native': 'express-mw/velox.mjs' },
      baseline: 'velox-native',
      request: REQUEST,
      expect: EXPECT,
    },
  ],
  targets: [
    { label: 'Velox ahead of ultimate-express', a: ['express-mw', 'velox'], b: ['express-mw', 'ultimate-express'], min: 1, strict: true },
    { label: 'Velox ahead of Express', a: ['express-mw', 'velox'], b: ['express-mw', 'express'], min: 1, strict: true },
  ],
  references: [{ label: 'Velox with express.json() and compression / Velox alone', a: ['express-mw', 'velox'], b: ['express-mw-native', 'velox-native'] }],
  probes: [],
};

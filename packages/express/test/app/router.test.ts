import { describe, expect, it } from 'vitest';
import { compilePath } from '../../src/app/libs.ts';
import { Layer } from '../../src/app/router.ts';

const PATTERNS = ['', '/', '/a', '/a/', '/api', '/api/', '/API/v1', '/route/49', '/a.b', '/x-y_z~', '/%41b', '//', '/a//b', '/déjà', '/a/:id', '/:id', '/a/:id/b', '/A/:x/:y', '/a/:id/:id', '/id/:id', '/:a-b', '/a/:id?', '/a/:id/'];
const PATHS = [
  '',
  '/',
  '//',
  '/a',
  '/A',
  '/a/',
  '/a//',
  '/a/b',
  '/a//b',
  '/ab',
  '/a.b',
  '/a.bc',
  '/aXb',
  '/api',
  '/Api',
  '/api/',
  '/api/x',
  '/api//x',
  '/apix',
  '/api/v1',
  '/API/v1/',
  '/api/v1/x',
  '/route/49',
  '/route/49/',
  '/route/490',
  '/ROUTE/49',
  '/x-y_z~',
  '/X-Y_Z~/',
  '/%41b',
  '/%61b',
  '/\u212Aa',
  '/a\u212A',
  '/api\u0130',
  '/a/1',
  '/a/1/',
  '/a/1//',
  '/A/1',
  '/a/1/b',
  '/a/1/B/',
  '/a/1/bc',
  '/a//b',
  '/a/x/y',
  '/a/x/y/',
  '/a/%41/y',
  '/a/%zz',
  '/id/42',
  '/id/42/',
  '/ID/\u00e9',
  '/id/a\nb',
  '/x-b',
  '/a/1/2/3',
];

describe('the router\'s plain-path matching', () => {
  it('gives what path-to-regexp 0.1\'s expression gives, for every option', () => {
    const mismatches: string[] = [];
    for (const pattern of PATTERNS) {
      for (const sensitive of [false, true]) {
        for (const strict of [false, true]) {
          for (const end of [false, true]) {
            const options = { sensitive, strict, end };
            // Layer's special cases ('/' for a middleware, '*') are not the plain path.
            if (pattern === '/' && !end) continue;
            const layer = new Layer(pattern, options, () => {});
            const { regexp } = compilePath(pattern, options);
            for (const path of PATHS) {
              const found = regexp.exec(path);
              const expected = found?.[0];
              let matched: unknown;
              try {
                matched = layer.match(path);
              } catch (err) {
                matched = `threw ${(err as Error).message}`;
              }
              // A bad escape in a parameter throws (a 400) after the path matched.
              const got = matched === true || typeof matched === 'string' ? layer.path : undefined;
              if (got !== expected) mismatches.push(`${JSON.stringify(pattern)} ${JSON.stringify(options)} on ${JSON.stringify(path)}: ${got} vs ${expected}`);
              // The parameters too: what path-to-regexp's groups give, decoded (a bad escape throws).
              if (found) {
                const { keys } = compilePath(pattern, options);
                const params: Record<string, unknown> = {};
                let decoded = true;
                keys.forEach((key: { name: string | number }, i: number) => {
                  const raw = found[i + 1];
                  try {
                    const value = raw === undefined ? raw : decodeURIComponent(raw);
                    if (value !== undefined || !Object.hasOwn(params, key.name)) params[key.name] = value;
                  } catch {
                    decoded = false;
                  }
                });
                if (!decoded) {
                  if (typeof matched !== 'string') mismatches.push(`${JSON.stringify(pattern)} on ${JSON.stringify(path)}: no 400 for a bad escape`);
                } else if (JSON.stringify(layer.params) !== JSON.stringify(params)) {
                  mismatches.push(`${JSON.stringify(pattern)} ${JSON.stringify(options)} on ${JSON.stringify(path)}: params ${JSON.stringify(layer.params)} vs ${JSON.stringify(params)}`);
                }
              }
            }
          }
        }
      }
    }
    expect(mismatches).toEqual([]);
  });
});

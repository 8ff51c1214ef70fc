import { describe, expect, it } from 'vitest';
import { compilePath } from '../../src/app/libs.ts';
import { Layer } from '../../src/app/router.ts';

const PATTERNS = ['', '/', '/a', '/a/', '/api', '/api/', '/API/v1', '/route/49', '/a.b', '/x-y_z~', '/%41b', '//', '/a//b', '/déjà', '/a/:id'];
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
              const expected = regexp.exec(path)?.[0];
              const matched = layer.match(path);
              const got = matched ? layer.path : undefined;
              if (got !== expected) mismatches.push(`${JSON.stringify(pattern)} ${JSON.stringify(options)} on ${JSON.stringify(path)}: ${got} vs ${expected}`);
            }
          }
        }
      }
    }
    expect(mismatches).toEqual([]);
  });
});

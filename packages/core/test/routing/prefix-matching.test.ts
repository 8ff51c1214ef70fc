import { get, listen } from '@velox/test-utils';
import { describe, expect, it } from 'vitest';
import { ErrorCodes, normalizePrefix, type PathSegment, PrefixRelation, pathSegments, prefixMatcher, relateToPrefix } from '../../src/index.ts';
import { server } from '../helpers.ts';

const invalid = expect.objectContaining({ code: ErrorCodes.INVALID_OPTION });
const texts = (segments: readonly PathSegment[]) => segments.map((s) => s.text);

describe('pathSegments', () => {
  it('splits a pattern into segments; / and the empty string give none', () => {
    expect(pathSegments('/')).toEqual([]);
    expect(pathSegments('')).toEqual([]);
    expect(texts(pathSegments('/users/:id'))).toEqual(['users', ':id']);
    expect(texts(pathSegments('/files/*'))).toEqual(['files', '*']);
    expect(texts(pathSegments('/a/'))).toEqual(['a', '']);
  });

  it('marks the segments case-insensitive with fold, keeping the lower-case text', () => {
    expect(pathSegments('/Admin/:Page', true)).toEqual([
      { text: 'Admin', fold: true, lower: 'admin' },
      { text: ':Page', fold: true, lower: ':page' },
    ]);
    expect(pathSegments('/Admin')[0]).toEqual({ text: 'Admin', fold: false, lower: 'admin' });
  });

  it('throws VELOX_ERR_INVALID_OPTION for a path without a leading slash, or not a string', () => {
    expect(() => pathSegments('users')).toThrow(invalid);
    expect(() => pathSegments(undefined as never)).toThrow(/starting with "\/"/);
  });
});

describe('normalizePrefix', () => {
  it('drops trailing slashes; / becomes the empty prefix', () => {
    expect(normalizePrefix('/api/')).toBe('/api');
    expect(normalizePrefix('/api//')).toBe('/api');
    expect(normalizePrefix('/a/:b')).toBe('/a/:b');
    expect(normalizePrefix('/')).toBe('');
  });

  it('throws VELOX_ERR_INVALID_OPTION for a wildcard or a prefix without a leading slash', () => {
    expect(() => normalizePrefix('/files/*')).toThrow(invalid);
    expect(() => normalizePrefix('api')).toThrow(invalid);
    expect(() => normalizePrefix(3 as never)).toThrow(invalid);
  });
});

describe('relateToPrefix', () => {
  it.each([
    ['/admin/users', '/admin', PrefixRelation.Always],
    ['/admin', '/admin', PrefixRelation.Always],
    ['/admin/', '/admin', PrefixRelation.Always],
    ['/anything', '', PrefixRelation.Always],
    ['/admin/:id', '/admin/:x', PrefixRelation.Always],
    ['/shop/users', '/:area', PrefixRelation.Always],
    ['/:area/users', '/admin', PrefixRelation.Sometimes],
    ['/*', '/admin', PrefixRelation.Sometimes],
    ['/admin/*', '/admin/users', PrefixRelation.Sometimes],
    ['/public', '/admin', PrefixRelation.Never],
    ['/administrator', '/admin', PrefixRelation.Never],
    ['/admin', '/admin/users', PrefixRelation.Never],
    ['/', '/admin', PrefixRelation.Never],
    ['/admin/', '/admin/:x', PrefixRelation.Never],
    ['/Admin/users', '/admin', PrefixRelation.Never],
  ] as const)('puts %s against %s at %s', (route, prefix, relation) => {
    expect(relateToPrefix(route, prefix)).toBe(relation);
    // Segments give the same answer as strings.
    expect(relateToPrefix(pathSegments(route), pathSegments(prefix))).toBe(relation);
  });

  it('compares literal text case-insensitively when either side folds', () => {
    expect(relateToPrefix(pathSegments('/ADMIN/users', true), '/admin')).toBe(PrefixRelation.Always);
    expect(relateToPrefix('/ADMIN/users', pathSegments('/admin', true))).toBe(PrefixRelation.Always);
    expect(relateToPrefix(pathSegments('/shop', true), pathSegments('/admin', true))).toBe(PrefixRelation.Never);
  });
});

describe('prefixMatcher', () => {
  it('tests a path against literal segments, whole segments only', () => {
    const matches = prefixMatcher('/admin/users');
    expect(matches('/admin/users')).toBe(true);
    expect(matches('/admin/users/')).toBe(true);
    expect(matches('/admin/users/7')).toBe(true);
    expect(matches('/admin/usersx')).toBe(false);
    expect(matches('/admin')).toBe(false);
    expect(matches('/admin/')).toBe(false);
    expect(matches('/Admin/users')).toBe(false);
    expect(matches('/')).toBe(false);
  });

  it('lets a parameter of the prefix take any non-empty segment', () => {
    const matches = prefixMatcher('/:tenant/admin');
    expect(matches('/acme/admin')).toBe(true);
    expect(matches('/acme/admin/x')).toBe(true);
    expect(matches('//admin')).toBe(false);
    expect(matches('/acme/shop')).toBe(false);
  });

  it('matches everything with the empty prefix', () => {
    expect(prefixMatcher('')('/')).toBe(true);
    expect(prefixMatcher([])('/anything/at/all')).toBe(true);
  });

  it("folds case where the prefix's segment folds, or the route's segment at that place", () => {
    expect(prefixMatcher(pathSegments('/admin', true))('/ADMIN/x')).toBe(true);
    expect(prefixMatcher('/admin')('/ADMIN/x')).toBe(false);
    // The route /Files/* of a case-insensitive router: what its wildcard matched folds too.
    const route = pathSegments('/Files/*', true);
    expect(prefixMatcher('/files/docs', route)('/FILES/DOCS/a.txt')).toBe(true);
    expect(prefixMatcher('/files/docs', route)('/files/other/a.txt')).toBe(false);
    expect(prefixMatcher('/files/docs', pathSegments('/files/*'))('/files/DOCS/a.txt')).toBe(false);
  });
});

describe('prefix matching on a server', () => {
  it("decides like app.use('/prefix', mw), so a plugin's scoped middleware runs where the server's does", async () => {
    const app = server();
    const prefix = normalizePrefix('/admin/');
    // The server's own scoping...
    app.use(prefix, (_req, res, next) => {
      res.set('x-server-guard', '1');
      next();
    });
    // ...and a plugin's, built from the exports, for the one route it scopes by hand.
    const pattern = '/:area/users';
    expect(relateToPrefix(pattern, prefix)).toBe(PrefixRelation.Sometimes);
    const underPrefix = prefixMatcher(prefix);
    app.get(
      pattern,
      (req, res, next) => {
        if (underPrefix(req.path)) res.set('x-plugin-guard', '1');
        next();
      },
      (req, res) => res.send(req.params.area),
    );
    const url = await listen(app);

    for (const [path, guarded] of [
      ['/admin/users', true],
      ['/shop/users', false],
      ['/Admin/users', false],
    ] as const) {
      const r = await get(`${url}${path}`);
      expect(r.status).toBe(200);
      expect(r.headers.get('x-server-guard')).toBe(guarded ? '1' : null);
      expect(r.headers.get('x-plugin-guard')).toBe(guarded ? '1' : null);
    }
  });
});

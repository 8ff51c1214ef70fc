import { describe, expectTypeOf, it } from 'vitest';
import type { PlaceholderKind, PlaceholderTarget, PluginFix, Server, VeloxError } from '../../src/index.ts';
import { definePlaceholder, isPlaceholder, missingPlugin } from '../../src/index.ts';

const app = null as unknown as Server;

describe('placeholders, as typed', () => {
  it('leave res.sendFile and res.download out of core types (they come with @velox/static)', () => {
    app.get('/f', (req, res) => {
      // @ts-expect-error res.sendFile is declared by @velox/static (the sendFiles plugin)
      res.sendFile('/srv/a.txt');
      // @ts-expect-error res.download is declared by @velox/static (the sendFiles plugin)
      res.download('/srv/a.txt');
    });
  });

  it('take a target, a member name, the fix and a kind', () => {
    expectTypeOf(definePlaceholder).parameters.toEqualTypeOf<[PlaceholderTarget, string, PluginFix, PlaceholderKind?]>();
    expectTypeOf<PlaceholderTarget>().toEqualTypeOf<'request' | 'response'>();
    expectTypeOf<PlaceholderKind>().toEqualTypeOf<'method' | 'property'>();
    expectTypeOf(isPlaceholder('response', 'sendFile')).toEqualTypeOf<boolean>();
    expectTypeOf(missingPlugin('res.sendFile', { plugin: 'sendFiles', from: '@velox/static' })).toEqualTypeOf<VeloxError>();
    // @ts-expect-error the fix names the package too
    definePlaceholder('response', 'render', { plugin: 'views' });
  });
});

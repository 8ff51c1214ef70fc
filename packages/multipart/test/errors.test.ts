import { VeloxError } from '@velox/core';
import { describeErrorCodes } from '@velox/test-utils';
import { expect, it } from 'vitest';
import { MultipartErrorCodes } from '../src/index.ts';
import { limitError } from '../src/errors.ts';
import { resolve } from '../src/limits.ts';

describeErrorCodes('MultipartErrorCodes', MultipartErrorCodes, { readme: new URL('../README.md', import.meta.url), prefix: 'VELOX_ERR_MULTIPART_' }, (readme) => {
  it('answers every crossed limit with a 413 VeloxError naming it', () => {
    const limits = resolve(undefined, undefined, 'test').limits;
    for (const name of Object.keys(limits) as Array<keyof typeof limits>) {
      const err = limitError(name, limits[name]);
      expect(err).toBeInstanceOf(VeloxError);
      expect(err.status).toBe(413);
      expect(err.expose).toBe(true);
      expect(err.details).toEqual({ limit: name, max: limits[name] });
      expect(readme).toContain(`\`${name}\``);
    }
  });

  it('documents every limit default the README states', () => {
    const { limits } = resolve(undefined, undefined, 'test');
    expect(limits).toEqual({
      fileSize: 10 * 1024 * 1024,
      files: 10,
      fields: 100,
      fieldSize: 100 * 1024,
      fieldNameSize: 100,
      parts: 110,
      headerPairs: 16,
      headerSize: 16 * 1024,
      bodySize: 10 * 10 * 1024 * 1024 + 100 * 100 * 1024 + 110 * (16 * 1024 + 256),
    });
  });
});

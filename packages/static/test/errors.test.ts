import { VeloxError } from '@velox/core';
import { describeErrorCodes, thrownBy } from '@velox/test-utils';
import { expect, it } from 'vitest';
import { StaticErrorCodes, serveStatic } from '../src/index.ts';

describeErrorCodes('StaticErrorCodes', StaticErrorCodes, { readme: new URL('../README.md', import.meta.url), prefix: 'VELOX_ERR_STATIC_' }, () => {
  it('throws VeloxErrors that carry the code', () => {
    const thrown = thrownBy(() => serveStatic('/definitely/not/here'));
    expect(thrown).toBeInstanceOf(VeloxError);
    expect((thrown as VeloxError).code).toBe(StaticErrorCodes.INVALID_OPTION);
  });
});

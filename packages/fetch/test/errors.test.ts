import { VeloxError } from '@velox/core';
import { describeErrorCodes, thrownBy } from '@velox/test-utils';
import { expect, it } from 'vitest';
import { FetchErrorCodes, fetchHandler } from '../src/index.ts';

describeErrorCodes('FetchErrorCodes', FetchErrorCodes, { readme: new URL('../README.md', import.meta.url), prefix: 'VELOX_ERR_FETCH_' }, () => {
  it('throws VeloxErrors that carry the code', () => {
    const thrown = thrownBy(() => fetchHandler(() => new Response(''), { timeout: Number.NaN }));
    expect(thrown).toBeInstanceOf(VeloxError);
    expect((thrown as VeloxError).code).toBe(FetchErrorCodes.INVALID_OPTION);
  });
});

import { describeErrorCodes, thrownBy } from '@velox/test-utils';
import { VeloxError } from '@velox/core';
import { expect, it } from 'vitest';
import { OtelErrorCodes, VeloxInstrumentation } from '../src/index.ts';

describeErrorCodes('OtelErrorCodes', OtelErrorCodes, { readme: new URL('../README.md', import.meta.url), prefix: 'VELOX_ERR_OTEL_' }, () => {
  it('throws VeloxErrors that carry the code', () => {
    const thrown = thrownBy(() => new VeloxInstrumentation({ responseHook: 42 as never }));
    expect(thrown).toBeInstanceOf(VeloxError);
    expect((thrown as VeloxError).code).toBe(OtelErrorCodes.INVALID_OPTION);
  });
});

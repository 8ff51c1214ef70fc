import { VeloxError } from '@velox/core';
import { describeErrorCodes } from '@velox/test-utils';
import { expect, it } from 'vitest';
import { ClusterErrorCodes, cluster } from '../src/index.ts';

describeErrorCodes('ClusterErrorCodes', ClusterErrorCodes, { readme: new URL('../README.md', import.meta.url), prefix: 'VELOX_ERR_CLUSTER_' }, () => {
  it('rejects with VeloxErrors that carry the code', async () => {
    const err = await cluster({ entry: new URL('./fixtures/nowhere.ts', import.meta.url), port: 0 }).catch((e) => e);
    expect(err).toBeInstanceOf(VeloxError);
    expect(err.code).toBe(ClusterErrorCodes.INVALID_ENTRY);
  });
});

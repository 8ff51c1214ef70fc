import { VeloxError } from '@velox/core';
import { describeErrorCodes, thrownBy } from '@velox/test-utils';
import { expect, it } from 'vitest';
import { Router, RouterErrorCodes } from '../src/index.ts';

describeErrorCodes('RouterErrorCodes', RouterErrorCodes, { readme: new URL('../README.md', import.meta.url), prefix: 'VELOX_ERR_ROUTER_' }, () => {
  it('throws VeloxErrors that carry the code', () => {
    const r = new Router();
    r.get('/a', (_req, res) => res.end());
    const thrown = thrownBy(() => r.get('/a', (_req, res) => res.end()));
    expect(thrown).toBeInstanceOf(VeloxError);
    expect((thrown as VeloxError).code).toBe(RouterErrorCodes.DUPLICATE_ROUTE);
  });
});

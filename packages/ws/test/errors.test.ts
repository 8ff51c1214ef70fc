import { VeloxError } from '@velox/core';
import { describeErrorCodes, thrownBy } from '@velox/test-utils';
import { expect, it } from 'vitest';
import { websocket, WsErrorCodes } from '../src/index.ts';

describeErrorCodes('WsErrorCodes', WsErrorCodes, { readme: new URL('../README.md', import.meta.url), prefix: 'VELOX_ERR_WS_' }, () => {
  it('throws VeloxErrors that carry the code', () => {
    const thrown = thrownBy(() => websocket({ idleTimeout: 3 }));
    expect(thrown).toBeInstanceOf(VeloxError);
    expect((thrown as VeloxError).code).toBe(WsErrorCodes.INVALID_OPTION);
  });
});

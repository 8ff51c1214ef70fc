import { VeloxError } from '@velox/core';
import { describeErrorCodes, start } from '@velox/test-utils';
import { expect, it } from 'vitest';
import { ExpressErrorCodes } from '../src/index.ts';
import { server } from './helpers.ts';

describeErrorCodes('ExpressErrorCodes', ExpressErrorCodes, { readme: new URL('../README.md', import.meta.url), prefix: 'VELOX_ERR_EXPRESS_' }, () => {
  it('throws VeloxErrors that carry the code', async () => {
    const app = server();
    let thrown: unknown;
    app.get('/', (req, res) => {
      try {
        req.app.set('etag', true);
      } catch (err) {
        thrown = err;
      }
      res.send('ok');
    });
    const { url } = await start(app);
    await (await fetch(url)).text();
    expect(thrown).toBeInstanceOf(VeloxError);
    expect((thrown as VeloxError).code).toBe(ExpressErrorCodes.FIXED_SETTING);
  });
});

import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeErrorCodes } from '@velox/test-utils';
import { expect, it } from 'vitest';
import { resolveOptions } from '../src/create.ts';
import { CreateErrorCodes, CreateVeloxError } from '../src/index.ts';
import { checkTarget } from '../src/write.ts';

describeErrorCodes('CreateErrorCodes', CreateErrorCodes, { readme: new URL('../README.md', import.meta.url), prefix: 'VELOX_ERR_CREATE_' }, () => {
  it('throws CreateVeloxErrors that carry the code', async () => {
    const thrown = (fn: () => unknown) => {
      try {
        fn();
      } catch (err) {
        return err;
      }
      return undefined;
    };
    const badName = thrown(() => resolveOptions({ name: 'Bad Name' }));
    expect(badName).toBeInstanceOf(CreateVeloxError);
    expect(badName).toMatchObject({ code: CreateErrorCodes.INVALID_NAME, name: 'CreateVeloxError' });
    expect(thrown(() => resolveOptions({ name: 'ok', packages: ['nope'] }))).toMatchObject({ code: CreateErrorCodes.UNKNOWN_PACKAGE });
    expect(thrown(() => resolveOptions({ name: 'ok', language: 'py' as never }))).toMatchObject({ code: CreateErrorCodes.INVALID_ARGUMENT });

    const dir = await mkdtemp(join(tmpdir(), 'create-velox-errors-'));
    try {
      await mkdir(join(dir, 'taken'));
      await writeFile(join(dir, 'taken', 'a'), '');
      await expect(checkTarget(join(dir, 'taken'), 'The folder taken')).rejects.toMatchObject({ code: CreateErrorCodes.TARGET_NOT_EMPTY });
      await expect(checkTarget(join(dir, 'free'), 'The folder free')).resolves.toBe(false);
      expect(await readdir(dir)).toEqual(['taken']);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

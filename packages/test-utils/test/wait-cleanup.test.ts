import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { closeAfter, eventually, later, sleep, tempDir, thrownBy, until } from '../src/index.ts';

describe('until()', () => {
  it('resolves once the check holds, sync or async', async () => {
    let n = 0;
    await until(() => ++n === 3, 'the third call');
    expect(n).toBe(3);
    let m = 0;
    await until(async () => ++m === 2, 'the second call');
    expect(m).toBe(2);
  });

  it('rejects with what it waited for once the time is up', async () => {
    await expect(until(() => false, 'a thing that never happens', 100)).rejects.toThrow('timed out waiting for a thing that never happens');
  });
});

describe('eventually()', () => {
  it('resolves with the first value that is not undefined', async () => {
    let n = 0;
    expect(await eventually(() => (++n === 3 ? `value ${n}` : undefined), 'the value')).toBe('value 3');
  });

  it('rejects once the time is up', async () => {
    await expect(eventually(() => undefined, 'nothing', 100)).rejects.toThrow('timed out waiting for nothing');
  });
});

describe('sleep()', () => {
  it('resolves after the time has passed', async () => {
    const started = Date.now();
    await sleep(30);
    expect(Date.now() - started).toBeGreaterThanOrEqual(25);
  });
});

describe('later() and closeAfter()', () => {
  const ran: string[] = [];
  const closed: unknown[][] = [];

  it('registers cleanups for the end of the test', () => {
    later(() => void ran.push('first registered'));
    later(async () => {
      await sleep(10);
      ran.push('second registered');
    });
    closeAfter({ close: (...args: unknown[]) => void closed.push(args) }, { timeout: 1000 });
    expect(ran).toEqual([]);
  });

  it('ran them after that test, the last registered first, awaiting each, with close() given its arguments', () => {
    expect(ran).toEqual(['second registered', 'first registered']);
    expect(closed).toEqual([[{ timeout: 1000 }]]);
  });
});

describe('tempDir()', () => {
  let dir = '';

  it('makes a directory under the system temporary directory with the prefix', async () => {
    dir = await tempDir('velox-test-utils-');
    expect(dir).toMatch(/velox-test-utils-[^/]+$/);
    expect(existsSync(dir)).toBe(true);
  });

  it('removed it after that test', () => {
    expect(dir).not.toBe('');
    expect(existsSync(dir)).toBe(false);
  });
});

describe('thrownBy()', () => {
  it('returns what the function threw, or undefined when it returned', () => {
    const error = new TypeError('bad');
    expect(
      thrownBy(() => {
        throw error;
      }),
    ).toBe(error);
    expect(thrownBy(() => 1)).toBeUndefined();
  });
});

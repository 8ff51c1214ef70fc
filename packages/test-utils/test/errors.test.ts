import { expect, it } from 'vitest';
import { describeErrorCodes } from '../src/index.ts';

const codes = { ONE: 'VELOX_ERR_FIXTURE_ONE', TWO: 'VELOX_ERR_FIXTURE_TWO' } as const;
let more = '';

// Declares 'documents every code in the README' and 'prefixes every code with VELOX_ERR_FIXTURE_',
// then the tests of `more`.
describeErrorCodes('FixtureErrorCodes', codes, { readme: new URL('./fixtures/README.md', import.meta.url), prefix: 'VELOX_ERR_FIXTURE_' }, (readme) => {
  more = readme;
  it('hands the README to the package-specific tests', () => {
    expect(more).toContain('# A README for describeErrorCodes() to read');
  });
});

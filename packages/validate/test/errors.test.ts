import { describeErrorCodes } from '@velox/test-utils';
import { ValidateErrorCodes } from '../src/index.ts';

describeErrorCodes('ValidateErrorCodes', ValidateErrorCodes, {
  readme: new URL('../README.md', import.meta.url),
  prefix: 'VELOX_ERR_',
  pattern: /^VELOX_ERR_(VALIDATION|VALIDATE_[A-Z_]+)$/,
});

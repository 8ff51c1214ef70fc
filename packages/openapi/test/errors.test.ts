import { describeErrorCodes } from '@velox/test-utils';
import { OpenApiErrorCodes } from '../src/index.ts';

describeErrorCodes('OpenApiErrorCodes', OpenApiErrorCodes, {
  readme: new URL('../README.md', import.meta.url),
  prefix: 'VELOX_ERR_',
  pattern: /^VELOX_ERR_OPENAPI_[A-Z_]+$/,
});

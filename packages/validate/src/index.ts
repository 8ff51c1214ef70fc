/**
 * @velox/validate: schema-checked Velox routes with any Standard Schema validator (Zod,
 * Valibot, ArkType). The handler reads typed, converted values; bad input answers 400.
 */
export { validate, validationOf } from './validate.ts';
export { ValidateErrorCodes } from './errors.ts';

export type { ValidationSchemas, ValidationPart, ValidationIssue, Validated, ValidateOptions, ResponseSchemas, ValidationDescription } from './validate.ts';
export type { ValidateErrorCode } from './errors.ts';

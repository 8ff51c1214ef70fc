/**
 * create-velox: makes a new Velox app. The `create-velox` command (`npm create velox`) asks for
 * or takes a name, a language and packages; `createApp()` does the same from code.
 */
export { packageChoices } from './choices.ts';
export { createApp } from './create.ts';
export { CreateErrorCodes, CreateVeloxError } from './errors.ts';
export { folderOf, nameProblem } from './name.ts';
export { versions } from './versions.ts';

export type { PackageChoice, PackageName } from './choices.ts';
export type { CreatedApp, CreateOptions } from './create.ts';
export type { CreateErrorCode } from './errors.ts';
export type { Language, PackageManager } from './templates/spec.ts';
export type { Versions } from './versions.ts';

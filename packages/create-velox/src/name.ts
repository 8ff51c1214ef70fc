/**
 * The app's name: the rules npm applies to the name of a new package (those of
 * `validate-npm-package-name`'s `validForNewPackages`), written out here rather than imported so
 * that create-velox keeps no dependency.
 */
import { builtinModules } from 'node:module';

const RESERVED = new Set(['node_modules', 'favicon.ico']);
// Only the modules `require('x')` reaches without `node:`: `node:test` and the like need the prefix,
// so a package named `test` does not clash with them.
const BUILTINS = new Set(builtinModules.filter((m) => !m.startsWith('node:')));
const SCOPED = /^@([^/]+)\/([^/]+)$/;

/**
 * Why `name` cannot name a new npm package, or `undefined` when it can. The rules: 1 to 214
 * characters, lower case, no leading `.` or `_`, no spaces, none of `~'!()*`, only characters
 * that need no escaping in a URL (a scope `@scope/name` aside), not a Node.js built-in module nor
 * `node_modules` or `favicon.ico`.
 *
 * @example
 * ```ts
 * import { nameProblem } from 'create-velox';
 * nameProblem('my-api');  // undefined
 * nameProblem('My API');  // 'it may not contain capital letters'
 * ```
 */
export function nameProblem(name: string): string | undefined {
  if (name.length === 0) return 'it is empty';
  if (name.length > 214) return 'it is longer than 214 characters';
  if (name.trim() !== name) return 'it starts or ends with a space';
  if (name.startsWith('.')) return 'it starts with a dot';
  if (name.startsWith('_')) return 'it starts with an underscore';
  if (name !== name.toLowerCase()) return 'it may not contain capital letters';
  if (/[~'!()*]/.test(name)) return "it may not contain any of ~'!()*";
  if (/\s/.test(name)) return 'it may not contain spaces';
  if (RESERVED.has(name)) return `${name} is a reserved name`;
  if (BUILTINS.has(name)) return `${name} is the name of a Node.js built-in module`;
  const scoped = SCOPED.exec(name);
  const parts = scoped ? [scoped[1]!, scoped[2]!] : [name];
  if (!scoped && name.startsWith('@')) return 'a scoped name is written @scope/name';
  for (const part of parts) {
    if (part.startsWith('.') || part.startsWith('_')) return 'a part of it starts with a dot or an underscore';
    if (encodeURIComponent(part) !== part) return 'it may only contain URL-safe characters: letters, digits and -._';
  }
  return undefined;
}

/**
 * The folder an app of this name goes to, relative to the current directory: the name itself, or
 * the part after the scope for `@scope/name`.
 *
 * @example
 * ```ts
 * import { folderOf } from 'create-velox';
 * folderOf('@acme/api'); // 'api'
 * ```
 */
export function folderOf(name: string): string {
  const scoped = SCOPED.exec(name);
  return scoped ? scoped[2]! : name;
}

/**
 * What an app is made of, as the templates see it, and the small helpers they share.
 */
import type { PackageName } from '../choices.ts';

/**
 * The language of the app.
 *
 * @example
 * ```ts
 * import { type Language, createApp } from 'create-velox';
 * const language: Language = 'js';
 * await createApp({ name: 'my-api', language });
 * ```
 */
export type Language = 'ts' | 'js';

/**
 * The package manager whose commands the app's README and the last message show.
 *
 * @example
 * ```ts
 * import { type PackageManager, createApp } from 'create-velox';
 * const packageManager: PackageManager = 'pnpm';
 * await createApp({ name: 'my-api', packageManager }); // its README says pnpm install, pnpm start
 * ```
 */
export type PackageManager = 'npm' | 'pnpm' | 'yarn' | 'bun';

/** @internal Everything the templates need to know. */
export interface AppSpec {
  name: string;
  language: Language;
  /** The chosen packages, requirements added, in the order of `packageChoices`. */
  packages: readonly PackageName[];
  packageManager: PackageManager;
}

/** @internal A template's view of the spec. */
export class View {
  readonly ts: boolean;
  readonly ext: 'ts' | 'js';

  constructor(readonly spec: AppSpec) {
    this.ts = spec.language === 'ts';
    this.ext = spec.language;
  }

  /** Whether the app has this package. */
  has(name: PackageName): boolean {
    return this.spec.packages.includes(name);
  }

  /** `ts` in the TypeScript app, `js` (default: nothing) in the JavaScript one. */
  lang(ts: string, js = ''): string {
    return this.ts ? ts : js;
  }

  /** The command that runs a script of package.json: `npm start`, `npm test`, `pnpm start`, `npm run build`… */
  run(script: string): string {
    const pm = this.spec.packageManager;
    if (pm === 'npm') return script === 'start' || script === 'test' ? `npm ${script}` : `npm run ${script}`;
    if (pm === 'bun') return `bun run ${script}`;
    return `${pm} ${script}`;
  }

  /** The command that installs the dependencies. */
  install(): string {
    return this.spec.packageManager === 'yarn' ? 'yarn' : `${this.spec.packageManager} install`;
  }
}

/** @internal Joins lines, dropping those that are `false`/`undefined` (conditional lines), and ends with a newline. */
export function lines(...parts: Array<string | false | undefined | null>): string {
  return `${parts.filter((p): p is string => typeof p === 'string').join('\n')}\n`;
}

/**
 * The command line: `create-velox [name] [--ts | --js] [--packages a,b] [--yes]`, read with
 * node's `util.parseArgs` (strict: an unknown flag is an error, not ignored).
 */
import { parseArgs } from 'node:util';
import { invalidArgument } from './errors.ts';
import { packageChoices } from './choices.ts';
import type { Language } from './templates/spec.ts';

/** What the command line asked for; `undefined` where it said nothing (the question is then asked, or the default taken). */
export interface CliArgs {
  name: string | undefined;
  language: Language | undefined;
  packages: string[] | undefined;
  yes: boolean;
  help: boolean;
  version: boolean;
}

/** @internal Reads `argv` (without node and the script); throws VELOX_ERR_CREATE_INVALID_ARGUMENT on a bad one. */
export function readArgs(argv: readonly string[]): CliArgs {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(argv);
  } catch (err) {
    throw invalidArgument(`${(err as Error).message.replace(/\. To specify a positional argument.*$/s, '')}. See create-velox --help`);
  }
  const { values, positionals } = parsed;
  if (positionals.length > 1) {
    throw invalidArgument(`One name only, got ${positionals.length}: ${positionals.join(' ')}. Flags go after the name: create-velox my-api --js`);
  }
  const ts = values.ts || values.typescript;
  const js = values.js || values.javascript;
  if (ts && js) throw invalidArgument('--ts and --js both given: choose one');
  const packages = values.packages?.flatMap((list) => list.split(/[,\s]+/)).filter((p) => p !== '');
  return {
    name: positionals[0],
    language: ts ? 'ts' : js ? 'js' : undefined,
    packages,
    yes: values.yes ?? false,
    help: values.help ?? false,
    version: values.version ?? false,
  };
}

function parse(argv: readonly string[]) {
  return parseArgs({
    args: [...argv],
    allowPositionals: true,
    strict: true,
    options: {
      ts: { type: 'boolean' },
      typescript: { type: 'boolean' },
      js: { type: 'boolean' },
      javascript: { type: 'boolean' },
      packages: { type: 'string', short: 'p', multiple: true },
      yes: { type: 'boolean', short: 'y' },
      help: { type: 'boolean', short: 'h' },
      version: { type: 'boolean', short: 'v' },
    },
  });
}

/** @internal The text of `--help`. */
export function usage(): string {
  const width = Math.max(...packageChoices.map((c) => c.name.length));
  return [
    'Usage: npm create velox@latest [name] -- [options]',
    '       pnpm create velox [name] [options]',
    '       create-velox [name] [options]',
    '',
    'Makes a new Velox app in the folder <name> (an npm package name; "." for the current folder).',
    'On a terminal it asks for what the options did not give; otherwise it takes the defaults.',
    '',
    'Options:',
    '  --ts, --typescript     TypeScript (the default)',
    '  --js, --javascript     JavaScript',
    '  -p, --packages <list>  Velox packages to add, separated by commas (default: none)',
    '  -y, --yes              Ask nothing: the defaults for what the options did not give (name: velox-app)',
    '  -h, --help             Show this help',
    '  -v, --version          Show the version of create-velox',
    '',
    'Packages:',
    ...packageChoices.map((c) => `  ${c.name.padEnd(width)}  ${c.description}`),
    '',
    'Example: npm create velox@latest my-api -- --ts --packages router,validate,cors',
  ].join('\n');
}

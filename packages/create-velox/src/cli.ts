#!/usr/bin/env node
/**
 * The `create-velox` command (what `npm create velox` runs). Exit codes: 0 done, 2 bad input
 * (nothing written), 130 cancelled (nothing written), 1 anything else.
 */
import { relative } from 'node:path';
import { readArgs, usage } from './args.ts';
import { choiceOf, packageChoices } from './choices.ts';
import { type CreatedApp, createApp, resolveOptions } from './create.ts';
import { CreateErrorCodes, CreateVeloxError, invalidArgument } from './errors.ts';
import { type Prompter, prompter } from './prompt.ts';
import type { Language, PackageManager } from './templates/spec.ts';
import { View } from './templates/spec.ts';
import { versions } from './versions.ts';
import { checkTarget } from './write.ts';

/** The package manager that started us, from the user agent npm, pnpm, yarn and bun set. */
function packageManager(): PackageManager {
  const agent = process.env.npm_config_user_agent ?? '';
  for (const pm of ['pnpm', 'yarn', 'bun'] as const) if (agent.startsWith(`${pm}/`)) return pm;
  return 'npm';
}

async function main(argv: readonly string[]): Promise<void> {
  const args = readArgs(argv);
  if (args.help) {
    console.log(usage());
    return;
  }
  if (args.version) {
    console.log(versions().createVelox);
    return;
  }
  const pm = packageManager();
  const interactive = !args.yes && process.stdin.isTTY === true && process.stdout.isTTY === true;
  let name = args.name;
  let language = args.language;
  let packages = args.packages;

  if (interactive) {
    const prompt = prompter(process.stdin, process.stdout);
    try {
      name = await askName(prompt, name);
      language ??= await askLanguage(prompt);
      packages ??= await askPackages(prompt);
    } finally {
      prompt.close();
    }
  } else if (name === undefined) {
    if (!args.yes) throw invalidArgument('Give the app a name: create-velox my-api (nothing can be asked: the input is not a terminal), or --yes for velox-app');
    name = 'velox-app';
  }

  const app = await createApp({ name, language: language ?? 'ts', packages: packages ?? [], packageManager: pm });
  console.log(done(app, pm));
}

/** Asks until the name is valid and its folder free; a name given on the command line is checked the same way. */
async function askName(prompt: Prompter, given: string | undefined): Promise<string> {
  let name = given;
  for (;;) {
    if (name === undefined) name = await prompt.ask('App name:', 'velox-app');
    try {
      const { dir, shown } = resolveOptions({ name });
      await checkTarget(dir, shown);
      return name;
    } catch (err) {
      if (!(err instanceof CreateVeloxError)) throw err;
      prompt.say(err.message);
      name = undefined;
    }
  }
}

async function askLanguage(prompt: Prompter): Promise<Language> {
  for (;;) {
    const answer = (await prompt.ask('TypeScript or JavaScript? [ts/js]', 'ts')).toLowerCase();
    if (answer === 'ts' || answer === 'typescript') return 'ts';
    if (answer === 'js' || answer === 'javascript') return 'js';
    prompt.say('Answer ts or js.');
  }
}

async function askPackages(prompt: Prompter): Promise<string[]> {
  const width = Math.max(...packageChoices.map((c) => c.name.length));
  prompt.say('Velox packages to add (@velox/core is always there):');
  packageChoices.forEach((c, i) => {
    prompt.say(`  ${String(i + 1).padStart(2)}. ${c.name.padEnd(width)}  ${c.description}`);
  });
  for (;;) {
    const answer = await prompt.ask('Numbers or names, separated by commas (Enter for none):');
    const picked: string[] = [];
    const unknown: string[] = [];
    for (const word of answer.split(/[,\s]+/).filter((w) => w !== '')) {
      const byNumber = /^\d+$/.test(word) ? packageChoices[Number(word) - 1] : undefined;
      const choice = byNumber ?? choiceOf(word);
      if (choice) picked.push(choice.name);
      else unknown.push(word);
    }
    if (unknown.length === 0) return picked;
    prompt.say(`Unknown: ${unknown.join(', ')}. Give numbers from 1 to ${packageChoices.length}, or names: ${packageChoices.map((c) => c.name).join(', ')}.`);
  }
}

/** The last message: what was made, and the commands to run next. */
function done(app: CreatedApp, pm: PackageManager): string {
  const v = new View({ name: app.name, language: app.language, packages: app.packages, packageManager: pm });
  const where = relative(process.cwd(), app.dir);
  const used = ['@velox/core', ...app.packages.map((p) => `@velox/${p}`)].join(', ');
  return [
    '',
    `Made ${app.name} in ${where === '' ? 'this folder' : `./${where}`}: ${app.language === 'ts' ? 'TypeScript' : 'JavaScript'}, ${used}.`,
    ...app.added.map((p) => `(${p} was added: ${packageChoices.filter((c) => c.requires.includes(p) && app.packages.includes(c.name)).map((c) => c.name).join(', ')} needs it.)`),
    '',
    'Next:',
    '',
    ...(where === '' ? [] : [`  cd ${where}`]),
    `  ${v.install()}`,
    `  ${v.run('start')}`,
    '',
    `Then open http://localhost:3000/api/hello/world. ${v.run('test')} runs the tests.`,
  ].join('\n');
}

main(process.argv.slice(2)).catch((err: unknown) => {
  if (err instanceof CreateVeloxError) {
    console.error(`create-velox: ${err.message}`);
    process.exitCode = err.code === CreateErrorCodes.CANCELLED ? 130 : 2;
    return;
  }
  console.error(err);
  process.exitCode = 1;
});

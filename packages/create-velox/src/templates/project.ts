/**
 * The files around the code: package.json, tsconfig.json, README.md, Dockerfile, the ignore files
 * and public/index.html.
 */
import { packageChoices } from '../choices.ts';
import type { Versions } from '../versions.ts';
import { lines, type View } from './spec.ts';

/** @internal The app's package.json, as an object. */
export function manifest(v: View, versions: Versions): Record<string, unknown> {
  const velox = (pkg: string) => {
    const version = versions.velox[pkg];
    if (!version) throw new Error(`create-velox: no version of ${pkg} in versions.json`);
    return `^${version}`;
  };
  const third = (pkg: string) => {
    const range = versions.thirdParty[pkg];
    if (!range) throw new Error(`create-velox: no range for ${pkg} in versions.json`);
    return range;
  };

  const dependencies: Record<string, string> = { '@velox/core': velox('@velox/core') };
  for (const choice of packageChoices) if (v.has(choice.name)) dependencies[choice.package] = velox(choice.package);
  if (v.has('validate')) dependencies.zod = third('zod');

  const devDependencies: Record<string, string> = {};
  if (v.ts) {
    devDependencies['@types/node'] = third('@types/node');
    if (v.has('ws')) devDependencies['@types/ws'] = third('@types/ws');
    devDependencies.typescript = third('typescript');
  }
  if (v.has('ws')) devDependencies.ws = third('ws');

  const scripts: Record<string, string> = v.ts
    ? {
        build: 'tsc',
        start: 'tsc && node dist/src/server.js',
        test: 'tsc && node --test dist/test/*.test.js',
      }
    : {
        start: 'node src/server.js',
        test: 'node --test test/*.test.js',
      };

  return {
    name: v.spec.name,
    version: '0.1.0',
    private: true,
    type: 'module',
    engines: { node: '>=20.19' },
    scripts,
    dependencies: sorted(dependencies),
    ...(Object.keys(devDependencies).length > 0 ? { devDependencies: sorted(devDependencies) } : {}),
  };
}

function sorted(record: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(record).sort(([a], [b]) => (a < b ? -1 : 1)));
}

/** @internal tsconfig.json of the TypeScript app: plain NodeNext, strict, compiled to dist/. */
export function tsconfig(): string {
  const config = {
    compilerOptions: {
      target: 'ES2022',
      module: 'NodeNext',
      moduleResolution: 'NodeNext',
      lib: ['ES2023'],
      types: ['node'],
      strict: true,
      skipLibCheck: true,
      verbatimModuleSyntax: true,
      sourceMap: true,
      rootDir: '.',
      outDir: 'dist',
    },
    include: ['src', 'test'],
  };
  return `${JSON.stringify(config, null, 2)}\n`;
}

/** @internal .gitignore */
export function gitignore(): string {
  return lines('node_modules/', 'dist/', '*.log', '.env');
}

/** @internal .dockerignore */
export function dockerignore(): string {
  return lines('node_modules', 'dist', '.git', '*.log', '.env', 'Dockerfile', '.dockerignore');
}

/** @internal public/index.html of an app with @velox/static. */
export function indexHtml(v: View): string {
  return lines(
    '<!doctype html>',
    '<html lang="en">',
    '  <head>',
    '    <meta charset="utf-8">',
    `    <title>${v.spec.name}</title>`,
    '  </head>',
    '  <body>',
    `    <h1>${v.spec.name}</h1>`,
    '    <p>Served from public/ by @velox/static. Try <a href="/api/hello/world">/api/hello/world</a>.</p>',
    '  </body>',
    '</html>',
  );
}

/**
 * @internal The Dockerfile: node:22-bookworm-slim (Debian 12's glibc runs the uWebSockets.js
 * binary of Node 22); dependencies installed with npm (`npm ci` when a package-lock.json is
 * there); the TypeScript app compiled in a first stage. Runs as the `node` user, `node` as PID 1
 * so SIGTERM reaches the app's `closeOnSignals()`.
 */
export function dockerfile(v: View): string {
  const install = (omitDev: boolean) =>
    `RUN if [ -f package-lock.json ]; then npm ci${omitDev ? ' --omit=dev' : ''}; else npm install${omitDev ? ' --omit=dev' : ''}; fi && npm cache clean --force`;
  const runtime = [
    'FROM node:22-bookworm-slim',
    'ENV NODE_ENV=production',
    'WORKDIR /app',
    'COPY package.json package-lock.json* ./',
    install(true),
  ];
  if (!v.ts) {
    return lines(
      `# docker build -t ${dockerTag(v)} . && docker run --rm -p 3000:3000 ${dockerTag(v)}`,
      ...runtime,
      'COPY src ./src',
      v.has('static') && 'COPY public ./public',
      'USER node',
      'EXPOSE 3000',
      'CMD ["node", "src/server.js"]',
    );
  }
  return lines(
    `# docker build -t ${dockerTag(v)} . && docker run --rm -p 3000:3000 ${dockerTag(v)}`,
    'FROM node:22-bookworm-slim AS build',
    'WORKDIR /app',
    'COPY package.json package-lock.json* ./',
    install(false),
    'COPY tsconfig.json ./',
    'COPY src ./src',
    'COPY test ./test',
    'RUN npx tsc',
    '',
    ...runtime,
    'COPY --from=build /app/dist/src ./dist/src',
    v.has('static') && 'COPY public ./public',
    'USER node',
    'EXPOSE 3000',
    'CMD ["node", "dist/src/server.js"]',
  );
}

function dockerTag(v: View): string {
  return v.spec.name.replace(/^@/, '').replace(/\//g, '-');
}

/** @internal The app's README: the commands, the files, the environment, and a line per package. */
export function readme(v: View): string {
  const { name } = v.spec;
  const chosen = packageChoices.filter((c) => v.has(c.name));
  const env: string[] = ['| `PORT` | `3000` | The port the server listens on (every address). |'];
  if (v.has('cors')) env.push('| `CORS_ORIGIN` | `http://localhost:5173` | The origin of the front end allowed to read the answers. |');
  if (v.has('session'))
    env.push('| `SESSION_SECRET` | random at each start (refused in production) | Signs the session cookies: 32 or more random characters (`openssl rand -base64 48`). |');
  if (v.has('redis')) env.push('| `REDIS_URL` | `redis://127.0.0.1:6379` | Where Redis is. The app starts without it; `/api/hits` answers 503 until it is up. |');
  if (v.has('static')) env.push('| `NODE_ENV` | none | `production` stops watching public/ for changes (the Dockerfile sets it). |');
  else if (v.has('session')) env.push('| `NODE_ENV` | none | `production` makes `SESSION_SECRET` required (the Dockerfile sets it). |');

  return lines(
    `# ${name}`,
    '',
    `A [Velox](https://www.npmjs.com/package/@velox/core) app in ${v.ts ? 'TypeScript' : 'JavaScript'}, made by \`create-velox\`.`,
    '',
    '## Commands',
    '',
    '```sh',
    `${v.install()}${' '.repeat(Math.max(1, 14 - v.install().length))}# install the dependencies`,
    `${v.run('start')}${' '.repeat(Math.max(1, 14 - v.run('start').length))}# ${v.ts ? 'compile, then start' : 'start'} the server on http://localhost:3000 (PORT to change)`,
    `${v.run('test')}${' '.repeat(Math.max(1, 14 - v.run('test').length))}# ${v.ts ? 'compile, then run' : 'run'} the tests (node --test)`,
    '```',
    '',
    'Then open <http://localhost:3000/api/hello/world>. The server stops on Ctrl-C or SIGTERM after the',
    'requests in flight have finished.',
    '',
    '## Files',
    '',
    `- \`src/app.${v.ext}\`: \`buildApp()\`, which makes the app (middlewares, plugins, routes) without listening.`,
    `- \`src/server.${v.ext}\`: listens on \`PORT\` and closes gracefully on SIGTERM and SIGINT.`,
    `- \`test/app.test.${v.ext}\`: tests with \`node:test\`; \`app.inject(path, init)\` sends a request through the whole app and resolves to a \`Response\`, as \`fetch\` does, without a port.`,
    v.ts && `- \`tsconfig.json\`: compiles \`src/\` and \`test/\` to \`dist/\` (\`${v.run('build')}\`).`,
    v.has('static') && '- `public/`: the files served at `/`.',
    `- \`Dockerfile\`: \`docker build -t ${dockerTag(v)} . && docker run --rm -p 3000:3000${v.has('session') ? ' -e SESSION_SECRET=…' : ''} ${dockerTag(v)}\` (npm inside the image${v.has('session') ? '; it sets NODE_ENV=production, so SESSION_SECRET is required' : ''}).`,
    '',
    '## Routes',
    '',
    '| Route | What it does |',
    '| --- | --- |',
    '| `GET /api/hello/:name` | `{ "message": "Hello, <name>!" }` |',
    '| `GET /api/items` | A list of 100 sample items (a database stands there in a real app). |',
    v.has('session') && '| `GET /api/visits` | Counts your visits in a cookie session. |',
    v.has('redis') && '| `GET /api/hits` | Counts every request in Redis. |',
    v.has('multipart') && '| `POST /api/upload` | Reads a `multipart/form-data` upload; answers its fields and the size of each file. |',
    v.has('openapi') && '| `GET /openapi.json`, `GET /docs` | The OpenAPI document of these routes, and its docs page. |',
    v.has('ws') && '| `WS /ws` | A WebSocket that sends every message back. |',
    v.has('static') && '| `GET /*` | The files of `public/`. |',
    '',
    '## Environment',
    '',
    '| Variable | Default | Meaning |',
    '| --- | --- | --- |',
    ...env,
    '',
    '## Packages',
    '',
    '- [`@velox/core`](https://www.npmjs.com/package/@velox/core): the server (uWebSockets.js), routes, middlewares, `inject()`.',
    ...chosen.map((c) => `- [\`${c.package}\`](https://www.npmjs.com/package/${c.package}): ${c.description}.`),
    v.has('validate') && '- [`zod`](https://zod.dev): the schemas `@velox/validate` checks against (any Standard Schema validator works).',
    v.has('ws') && '- [`ws`](https://www.npmjs.com/package/ws) (development): the WebSocket client of the tests.',
    '',
    'Velox needs Node.js 20.19 or newer on Linux (glibc), macOS or Windows.',
  );
}

/**
 * The app's code: `src/app.(ts|js)`, which builds the app without listening, and
 * `src/server.(ts|js)`, which listens on PORT and closes on SIGTERM and SIGINT.
 */
import { lines, type View } from './spec.ts';

/** @internal `src/app.ts` or `src/app.js`. */
export function appModule(v: View): string {
  const { name } = v.spec;
  const router = v.has('router');
  // Routes under /api go on a Router mounted at /api, or on the app with the prefix written out.
  const on = router ? 'api' : 'app';
  const path = (p: string) => (router ? p : `/api${p}`);
  const validate = v.has('validate');
  const openapi = v.has('openapi');
  const describe = (summary: string) => (openapi ? ` describeRoute({ summary: '${summary}' }),` : '');

  return lines(
    v.has('session') && "import { randomBytes } from 'node:crypto';",
    "import { Server } from '@velox/core';",
    v.has('compress') && "import { compress } from '@velox/compress';",
    v.has('cors') && "import { cors } from '@velox/cors';",
    v.has('multipart') && "import { multipart } from '@velox/multipart';",
    openapi && "import { describeRoute, openapi } from '@velox/openapi';",
    v.has('rate-limit') && "import { rateLimit } from '@velox/rate-limit';",
    v.has('redis') && "import { RedisConnection } from '@velox/redis';",
    router && "import { Router } from '@velox/router';",
    v.has('security-headers') && "import { securityHeaders } from '@velox/security-headers';",
    v.has('session') && "import { session } from '@velox/session';",
    v.has('static') && "import { serveStatic } from '@velox/static';",
    validate && "import { validate } from '@velox/validate';",
    v.has('ws') && "import { websocket } from '@velox/ws';",
    validate && "import { z } from 'zod';",
    '',
    v.ts && v.has('session') && "declare module '@velox/session' {\n  interface SessionData {\n    visits: number;\n  }\n}\n",
    '/** Sample data: a database stands here in a real app. */',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: generated code, a template literal of the app
    'const items = Array.from({ length: 100 }, (_, i) => ({ id: i + 1, name: `Item ${i + 1}` }));',
    '',
    '/**',
    ` * Builds the app: its middlewares, plugins and routes. \`server.${v.ext}\` listens; the tests`,
    ' * call `app.inject()` on it without listening.',
    ' */',
    `export async function buildApp()${v.lang(': Promise<Server>')} {`,
    '  const app = new Server();',
    '',
    v.has('security-headers') && "  // helmet's security headers on every answer.",
    v.has('security-headers') && '  app.use(securityHeaders());',
    v.has('cors') && '  // The front end that may call this API from a browser.',
    v.has('cors') && "  app.use(cors({ origin: process.env.CORS_ORIGIN ?? 'http://localhost:5173' }));",
    v.has('rate-limit') && '  // 100 requests a minute per client address, counted in memory (one process).',
    v.has('rate-limit') && "  app.use(rateLimit({ limit: 100, windowMs: 60_000, headers: 'draft-8' }));",
    v.has('compress') && '  // br, zstd, gzip or deflate, as the client accepts, for answers over 1 KiB.',
    v.has('compress') && '  app.use(compress());',
    openapi && `  await app.register(openapi, { info: { title: '${name}', version: '0.1.0' } }); // /openapi.json and /docs`,
    v.has('session') && '  await app.register(session, { secret: sessionSecret() });',
    v.has('multipart') && '  await app.register(multipart, { limits: { fileSize: 10 * 1024 * 1024 } });',
    v.has('redis') && "  const redis = new RedisConnection({ url: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379' });",
    v.has('redis') && '  await app.register((server) => redis.attach(server)); // closed by app.close()',
    (v.has('security-headers') || v.has('cors') || v.has('rate-limit') || v.has('compress') || openapi || v.has('session') || v.has('multipart') || v.has('redis')) && '',
    router && '  const api = new Router();',
    ...(validate || openapi
      ? [
          `  ${on}.get(`,
          `    '${path('/hello/:name')}',`,
          openapi && "    describeRoute({ summary: 'Greets someone by name' }),",
          validate && '    validate({ params: z.object({ name: z.string().min(1).max(40) }) }),',
          // biome-ignore lint/suspicious/noTemplateCurlyInString: generated code, a template literal of the app
          '    (req, res) => res.json({ message: `Hello, ${req.params.name}!` }),',
          '  );',
        ]
      : [`  ${on}.get('${path('/hello/:name')}', (req, res) => res.json({ message: \`Hello, \${req.params.name}!\` }));`]),
    `  ${on}.get('${path('/items')}',${describe('Lists the items')} (req, res) => res.json(items));`,
    v.has('session') && `  ${on}.get('${path('/visits')}', async (req, res) => {`,
    v.has('session') && '    await req.session.start(); // loads the session the cookie names, or begins one',
    v.has('session') && "    const visits = (req.session.get('visits') ?? 0) + 1;",
    v.has('session') && "    req.session.set('visits', visits);",
    v.has('session') && '    res.json({ visits });',
    v.has('session') && '  });',
    v.has('redis') && `  // 503 while Redis cannot be reached.`,
    v.has('redis') && `  ${on}.get('${path('/hits')}', async (req, res) => res.json({ hits: await redis.command('INCR', '${name}:hits') }));`,
    v.has('multipart') && `  ${on}.post('${path('/upload')}', async (req, res) => {`,
    v.has('multipart') && `    const fields${v.lang(': Record<string, string>')} = {};`,
    v.has('multipart') && `    const files${v.lang(': Array<{ field: string; name: string; type: string; size: number }>')} = [];`,
    v.has('multipart') && '    await req.multipart(async (part) => {',
    v.has('multipart') && '      if (part.file) {',
    v.has('multipart') && '        // Counted here; `await part.write(path)` would save it.',
    v.has('multipart') && '        let size = 0;',
    v.has('multipart') && '        for await (const chunk of part.file.stream) size += chunk.length;',
    v.has('multipart') && '        files.push({ field: part.name, name: part.file.name, type: part.file.mimeType, size });',
    v.has('multipart') && '      } else {',
    v.has('multipart') && '        fields[part.name] = part.value;',
    v.has('multipart') && '      }',
    v.has('multipart') && '    });',
    v.has('multipart') && '    res.json({ fields, files });',
    v.has('multipart') && '  });',
    router && "  app.use('/api', api);",
    v.has('ws') && '',
    v.has('ws') && '  // Sends every message back.',
    v.has('ws') && "  app.ws(\n    '/ws',\n    websocket({\n      message(socket, message, isBinary) {\n        socket.send(message, isBinary);\n      },\n    }),\n  );",
    v.has('static') && '',
    v.has('static') && '  // public/ (of the folder the app starts in) at /; your routes win where they are more specific.',
    v.has('static') && "  // Watched for changes, except in production.",
    v.has('static') && "  app.use('/', serveStatic('public', { watch: process.env.NODE_ENV !== 'production' }));",
    '',
    '  return app;',
    '}',
    v.has('session') && '',
    v.has('session') && '/** SESSION_SECRET signs the session cookies; without it, a random secret (sessions end at each restart), outside production only. */',
    v.has('session') && `function sessionSecret()${v.lang(': string')} {`,
    v.has('session') && '  if (process.env.SESSION_SECRET) return process.env.SESSION_SECRET;',
    v.has('session') &&
      "  if (process.env.NODE_ENV === 'production') throw new Error('Set SESSION_SECRET to 32 or more random characters: openssl rand -base64 48');",
    v.has('session') && "  return randomBytes(32).toString('base64');",
    v.has('session') && '}',
  );
}

/** @internal `src/server.ts` or `src/server.js`. */
export function serverModule(v: View): string {
  return lines(
    "import { buildApp } from './app.js';",
    '',
    'const app = await buildApp();',
    'const { port } = await app.listen(Number(process.env.PORT ?? 3000));',
    'app.closeOnSignals(); // SIGTERM, SIGINT: let requests in flight finish, close, exit 0',
    `console.log(\`${v.spec.name} listening on http://localhost:\${port}\`);`,
  );
}

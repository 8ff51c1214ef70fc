// The Hono app on @velox/fetch's serve() with lightResponse: false: Node's own Response and Headers (the writer reads what they keep).
import { serve as serveFetch } from '@velox/fetch';
import { assertNativeUws, serve } from '../../lib/server-kit.mjs';
import { honoScenarios } from './app.mjs';

await serve({
  check: () => assertNativeUws(import.meta.url, '@velox/core'),
  create: () => ({ app: null }),
  scenarios: honoScenarios(),
  listen: async (holder, port) => (await serveFetch({ fetch: holder.app.fetch, port, hostname: '127.0.0.1', logger: false, lightResponse: false })).port,
});

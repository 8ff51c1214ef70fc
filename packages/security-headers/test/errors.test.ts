import { VeloxError } from '@velox/core';
import { describeErrorCodes, listen, thrownBy } from '@velox/test-utils';
import { expect, it } from 'vitest';
import { SecurityHeadersErrorCodes, securityHeaders } from '../src/index.ts';
import { server } from './helpers.ts';

describeErrorCodes(
  'SecurityHeadersErrorCodes',
  SecurityHeadersErrorCodes,
  { readme: new URL('../README.md', import.meta.url), prefix: 'VELOX_ERR_SECURITY_HEADERS_' },
  () => {
    it('throws INVALID_OPTION from the factory as a VeloxError', () => {
      const thrown = thrownBy(() => securityHeaders({ frameguard: { action: 'allow-from' as 'deny' } }));
      expect(thrown).toBeInstanceOf(VeloxError);
      expect(thrown).toMatchObject({ code: SecurityHeadersErrorCodes.INVALID_OPTION, status: 500, expose: false });
    });

    it('answers INVALID_DIRECTIVE as a 500 whose message stays on the server', async () => {
      const app = server();
      app.use(securityHeaders({ contentSecurityPolicy: { directives: { imgSrc: [() => 'none'] } } }));
      app.get('/', (req, res) => res.send('ok'));
      const r = await fetch(`${await listen(app)}/`);
      expect(r.status).toBe(500);
      const body = (await r.json()) as { code?: string };
      expect(body.code).toBeUndefined();
      expect(JSON.stringify(body)).not.toContain('quoted');
      expect(app.logged[0]).toBeInstanceOf(VeloxError);
      expect(app.logged[0]).toMatchObject({ code: SecurityHeadersErrorCodes.INVALID_DIRECTIVE, status: 500, expose: false });
    });
  },
);

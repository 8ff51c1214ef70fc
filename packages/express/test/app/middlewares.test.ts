import compression from 'compression';
import cookieSession from 'cookie-session';
import cors from 'cors';
import helmet from 'helmet';
import methodOverride from 'method-override';
import morgan from 'morgan';
import multer from 'multer';
import responseTime from 'response-time';
import session from 'express-session';
import { describe, expect, it } from 'vitest';
import { type AnyExpress, both, compare } from './harness.ts';

// The same scripts on each major: express@4 against @velox/express, express@5 against @velox/express/5.
for (const major of [4, 5] as const) {
  describe(`express() with the usual middlewares, compared with express@${major}`, () => {
    it('runs compression, cors, helmet, method-override and morgan alike', async () => {
      const lines: string[] = [];
      const pair = await both((express: AnyExpress) => {
        const app = express();
        app.use(morgan(':method :url :status :res[content-length]', { stream: { write: (line: string) => lines.push(line.trim()) } }));
        app.use(helmet());
        app.use(cors({ origin: 'http://a.example', credentials: true }));
        app.use(compression({ threshold: 100 }));
        app.use(express.urlencoded({ extended: false }));
        app.use(methodOverride((req: any) => req.body?._method));
        app.get('/big', (_req: any, res: any) => res.send('x'.repeat(5000)));
        app.get('/small', (_req: any, res: any) => res.json({ small: true }));
        app.put('/thing', (req: any, res: any) => res.send(`put ${req.body.name}`));
        return app;
      }, { major });
      const ignore = { ignore: ['content-length'] };
      await pair.same({ path: '/big', headers: { 'accept-encoding': 'gzip', origin: 'http://a.example' } }, ignore);
      await pair.same({ path: '/small', headers: { 'accept-encoding': 'gzip' } });
      // cors sets Content-Length: 0 on its 204: Node sends it, uWS sends no length on a 204.
      await pair.same({ method: 'OPTIONS', path: '/small', headers: { origin: 'http://a.example', 'access-control-request-method': 'PUT' } }, ignore);
      await pair.same({ method: 'POST', path: '/thing', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: '_method=PUT&name=box' });
      // One line per request on each server: every line twice.
      const expected = ['GET /big 200 -', 'GET /small 200 14', 'OPTIONS /small 204 0', 'PUT /thing 200 7'];
      expect(lines.sort()).toEqual(expected.flatMap((line) => [line, line]).sort());
    });

    it('runs response-time, cookie-session and express-session alike', async () => {
      const pair = await both((express: AnyExpress) => {
        const app = express();
        app.use(responseTime());
        app.use('/cs', cookieSession({ name: 'cs', keys: ['k1'] }));
        app.get('/cs', (req: any, res: any) => {
          req.session.n = (req.session.n ?? 0) + 1;
          res.json({ n: req.session.n });
        });
        app.use('/es', session({ secret: 's', resave: false, saveUninitialized: false, cookie: { maxAge: 60_000 } }));
        app.get('/es', (req: any, res: any) => {
          req.session.views = (req.session.views ?? 0) + 1;
          res.json({ views: req.session.views });
        });
        return app;
      }, { major });
      for (const base of [pair.express, pair.velox]) {
        const first = await fetch(`${base}/cs`);
        expect(first.headers.get('x-response-time')).toMatch(/ms$/);
        const cookie = first.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ');
        expect(await (await fetch(`${base}/cs`, { headers: { cookie } })).json()).toEqual({ n: 2 });
        const es = await fetch(`${base}/es`);
        const sid = es.headers.getSetCookie()[0]!.split(';')[0]!;
        expect(sid).toMatch(/^connect\.sid=s%3A/);
        expect(await (await fetch(`${base}/es`, { headers: { cookie: sid } })).json()).toEqual({ views: 2 });
      }
    });

    it('parses multipart uploads with multer alike', async () => {
      await compare(
        (express: AnyExpress) => {
          const app = express();
          app.set('env', 'production');
          const upload = multer({ storage: multer.memoryStorage(), limits: { fileSize: 10 } });
          app.post('/up', upload.single('file'), (req: any, res: any) => res.json({ field: req.body.field, name: req.file?.originalname, size: req.file?.size }));
          app.use((err: any, _req: any, res: any, _next: any) => res.status(413).json({ code: err.code }));
          return app;
        },
        [
          {
            method: 'POST',
            path: '/up',
            headers: { 'content-type': 'multipart/form-data; boundary=XX' },
            body: '--XX\r\nContent-Disposition: form-data; name="field"\r\n\r\nvalue\r\n--XX\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\nContent-Type: text/plain\r\n\r\nhello\r\n--XX--\r\n',
          },
          {
            method: 'POST',
            path: '/up',
            headers: { 'content-type': 'multipart/form-data; boundary=XX' },
            body: '--XX\r\nContent-Disposition: form-data; name="file"; filename="b.txt"\r\nContent-Type: text/plain\r\n\r\nthis is more than ten bytes\r\n--XX--\r\n',
          },
        ],
        { major },
      );
    });
  });
}

// An ordinary Express 4 application: ejs views, express-session (in Redis with connect-redis
// when REDIS_URL is set), passport-local login, multer uploads, express.static, an API router
// with a param loader and an error middleware. Its only change from the Express version is the
// import on the next line (see README.md).
import express from '@velox/express'; // was: import express from 'express';
import { fileURLToPath } from 'node:url';
import { RedisStore } from 'connect-redis';
import session from 'express-session';
import multer from 'multer';
import passport from 'passport';
import { Strategy as LocalStrategy } from 'passport-local';
import { createClient } from 'redis';

const here = fileURLToPath(new URL('.', import.meta.url));
const users = { ana: { id: 'ana', name: 'Ana', password: 'secret' } };
const notes = new Map([['1', { id: '1', text: 'Buy milk' }]]);

let redis;
let store;
if (process.env.REDIS_URL) {
  redis = createClient({ url: process.env.REDIS_URL });
  await redis.connect();
  store = new RedisStore({ client: redis, prefix: process.env.SESSION_PREFIX ?? 'express-app:sess:' });
}

passport.use(
  new LocalStrategy((username, password, done) => {
    const user = users[username];
    if (!user || user.password !== password) return done(null, false);
    done(null, user);
  }),
);
passport.serializeUser((user, done) => done(null, user.id));
passport.deserializeUser((id, done) => done(null, users[id] ?? false));

const app = express();
app.set('view engine', 'ejs');
app.set('views', `${here}views`);
app.use('/static', express.static(`${here}public`));
app.use(express.urlencoded({ extended: false }));
app.use(session({ secret: process.env.SESSION_SECRET ?? 'keyboard cat', resave: false, saveUninitialized: false, store }));
app.use(passport.session());
app.use((req, res, next) => {
  res.locals.user = req.user;
  next();
});

function requireLogin(req, res, next) {
  if (req.isAuthenticated()) return next();
  res.status(401).json({ error: 'log in first' });
}

app.get('/', (req, res) => res.render('index', { title: 'Home' }));
app.get('/login', (req, res) => res.render('login', { title: 'Log in', failed: req.query.failed === '1' }));
app.post('/login', passport.authenticate('local', { successRedirect: '/', failureRedirect: '/login?failed=1' }));
app.post('/logout', (req, res, next) => {
  req.logout((err) => (err ? next(err) : res.redirect('/')));
});

const upload = multer({ storage: multer.memoryStorage(), limits: { fileSize: 1024 * 1024 } });
app.post('/upload', requireLogin, upload.single('file'), (req, res) => {
  if (!req.file) return res.status(400).json({ error: 'no file' });
  res.json({ name: req.file.originalname, size: req.file.size, type: req.file.mimetype, by: req.user.id });
});

const api = express.Router();
api.use(express.json());
api.param('id', (req, res, next, id) => {
  const note = notes.get(id);
  if (!note) return next(Object.assign(new Error(`no note ${id}`), { status: 404 }));
  req.note = note;
  next();
});
api.get('/notes', (req, res) => res.json([...notes.values()]));
api.route('/notes/:id')
  .get((req, res) => res.json(req.note))
  .put(requireLogin, (req, res) => {
    if (typeof req.body?.text !== 'string') return res.status(400).json({ error: 'text must be a string' });
    req.note.text = req.body.text;
    res.json(req.note);
  });
app.use('/api', api);

app.use((err, req, res, next) => {
  res.status(err.status ?? 500).json({ error: err.message });
});

const server = app.listen(Number(process.env.PORT ?? 3000), process.env.HOST ?? '127.0.0.1', () => {
  const { address, port } = server.address();
  console.log(`listening on http://${address}:${port}`);
});

process.on('SIGTERM', () => {
  server.close(async () => {
    await redis?.quit();
    process.exit(0);
  });
});

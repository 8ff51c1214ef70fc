// The two routes and the listen call of every Velox server of the stack suite (velox, velox-bare,
// velox-hand, velox-nodecompat), so that they differ only in their middlewares.
import { list, user } from './common.mjs';

/** GET /api/users/:id (small) and GET /api/list (about 2 KB, different every time), as res.json. */
export function veloxRoutes(app) {
  app.get('/api/users/:id', (req, res) => res.json(user(req.params.id)));
  app.get('/api/list', (_req, res) => res.json(list()));
}

export const veloxListen = async (app, port) => (await app.listen(port, '127.0.0.1')).port;

// HTTPS served by Velox itself, for when nothing in front terminates TLS. TLS_KEY and TLS_CERT
// are paths to PEM files (e.g. from Let's Encrypt); reload means restart.
import { Server } from '@velox/core';

const key = process.env.TLS_KEY;
const cert = process.env.TLS_CERT;
if (!key || !cert) throw new Error('Set TLS_KEY and TLS_CERT to the paths of the PEM key and certificate');

const app = new Server({ tls: { key, cert } });
app.get('/', (req, res) => res.send(`Hello over ${req.protocol}`));
app.closeOnSignals();

const port = Number(process.env.PORT ?? 443);
await app.listen(port, process.env.HOST ?? '0.0.0.0', ({ port: bound }) => console.log(`listening on https://localhost:${bound}`));

// The slow-consumer probe's client: streams one multipart body holding a file of <bytes>
// pseudo-random bytes to 127.0.0.1:<port>/upload as fast as the socket takes it, with a
// Content-Length or chunked (<framing>: cl | chunked), and meanwhile asks GET /ping every 20 ms
// on a connection of its own (one at a time: the next ping goes 20 ms after the last answer).
// Prints one JSON line: { status, ms, answer, pings: { count, median, p99, max } } (ms).
//   node servers/multipart/slow-client.mjs <port> <bytes> <cl|chunked>
import http from 'node:http';
import { connect } from 'node:net';
import { performance } from 'node:perf_hooks';
import { CONTENT_TYPE, probeFraming, pseudoRandomBytes } from './shared.mjs';

const port = Number(process.argv[2]);
const size = Number(process.argv[3]);
const chunked = process.argv[4] === 'chunked';
const { head, tail } = probeFraming();
const length = Buffer.byteLength(head) + size + Buffer.byteLength(tail);
// 1 MiB of the suite's pseudo-random bytes (zeros would let a boundary search skip ahead), in turn.
const block = pseudoRandomBytes(1024 * 1024);
const frame = (bytes) => (chunked ? [Buffer.from(`${bytes.length.toString(16)}\r\n`), bytes, Buffer.from('\r\n')] : [bytes]);

const pings = [];
let uploading = true;
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
const ping = () =>
  new Promise((resolve) => {
    const at = performance.now();
    http
      .get({ host: '127.0.0.1', port, path: '/ping', agent }, (res) => {
        res.resume();
        res.on('end', () => resolve(performance.now() - at));
      })
      .on('error', () => resolve(Number.NaN));
  });
const pinging = (async () => {
  while (uploading) {
    pings.push(await ping());
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
})();

const started = performance.now();
const socket = connect(port, '127.0.0.1');
let sent = 0;
let text = '';
const write = (bytes) => {
  let ok = true;
  for (const piece of frame(bytes)) ok = socket.write(piece);
  return ok;
};
const pump = () => {
  while (sent < size) {
    const n = Math.min(block.length, size - sent);
    sent += n;
    if (!write(n === block.length ? block : block.subarray(0, n))) return void socket.once('drain', pump);
  }
  write(Buffer.from(tail));
  if (chunked) socket.write('0\r\n\r\n');
};
let finished = false;
const finish = async () => {
  if (finished) return;
  finished = true;
  const ms = performance.now() - started;
  uploading = false;
  await pinging;
  agent.destroy();
  const times = pings.filter((t) => !Number.isNaN(t)).sort((a, b) => a - b);
  const at = (p) => times[Math.min(times.length - 1, Math.floor(p * times.length))] ?? 0;
  const match = /^HTTP\/1\.[01] (\d{3})/.exec(text);
  const bodyAt = text.indexOf('\r\n\r\n');
  const answer = bodyAt < 0 ? '' : text.slice(bodyAt + 4).replace(/^[0-9a-f]+\r\n|\r\n0\r\n\r\n$/g, '');
  const result = { status: match ? Number(match[1]) : 0, ms, answer, pings: { count: times.length, failed: pings.length - times.length, median: at(0.5), p99: at(0.99), max: at(1) } };
  process.stdout.write(`${JSON.stringify(result)}\n`);
  process.exit(0);
};
socket.on('connect', () => {
  const framing = chunked ? 'Transfer-Encoding: chunked' : `Content-Length: ${length}`;
  socket.write(`POST /upload HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: ${CONTENT_TYPE}\r\n${framing}\r\n\r\n`);
  write(Buffer.from(head));
  pump();
});
socket.on('data', (chunk) => {
  text += chunk.toString('latin1');
  if (/\r\n\r\n[\s\S]*\}\s*(\r\n)?(0\r\n\r\n)?$/.test(text)) void finish();
});
socket.on('error', (err) => {
  text ||= `error ${err.message}`;
  void finish();
});
socket.on('close', () => void finish());

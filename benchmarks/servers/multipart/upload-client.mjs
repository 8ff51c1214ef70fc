// The probe's client: streams one multipart body holding a file of <bytes> zero bytes to
// 127.0.0.1:<port>/upload, with backpressure, and prints one JSON line:
// { "status", "ms", "answer" }. Run pinned by the probe (see suites/multipart.mjs).
//   node servers/multipart/upload-client.mjs <port> <bytes>
import { connect } from 'node:net';
import { CONTENT_TYPE, probeFraming } from './shared.mjs';

const port = Number(process.argv[2]);
const size = Number(process.argv[3]);
const { head, tail } = probeFraming();
const length = Buffer.byteLength(head) + size + Buffer.byteLength(tail);
const block = Buffer.alloc(1024 * 1024);

const started = process.hrtime.bigint();
const socket = connect(port, '127.0.0.1');
let sent = 0;
let text = '';
const pump = () => {
  while (sent < size) {
    const n = Math.min(block.length, size - sent);
    sent += n;
    if (!socket.write(n === block.length ? block : block.subarray(0, n))) return void socket.once('drain', pump);
  }
  socket.write(tail);
};
const finish = () => {
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  const match = /^HTTP\/1\.[01] (\d{3})/.exec(text);
  const bodyAt = text.indexOf('\r\n\r\n');
  process.stdout.write(`${JSON.stringify({ status: match ? Number(match[1]) : 0, ms, answer: bodyAt < 0 ? '' : text.slice(bodyAt + 4) })}\n`);
  process.exit(0);
};
socket.on('connect', () => {
  socket.write(`POST /upload HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: ${CONTENT_TYPE}\r\nContent-Length: ${length}\r\n\r\n${head}`);
  pump();
});
socket.on('data', (chunk) => {
  text += chunk.toString('latin1');
  // One answer, small: done once its JSON body has closed.
  if (/\r\n\r\n[\s\S]*\}\s*(0\r\n\r\n)?$/.test(text)) finish();
});
socket.on('error', (err) => {
  process.stdout.write(`${JSON.stringify({ status: 0, ms: 0, error: err.message })}\n`);
  process.exit(0);
});
socket.on('close', finish);

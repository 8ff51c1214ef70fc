// The WebSocket load generator of the ws suite: raw TCP sockets (node:net), no WebSocket
// library. It has to be faster than the fastest server it measures, or it would measure itself:
//
// - every client frame is built once, masked once, before the run (a fixed 32-byte text
//   payload; the mask key is fixed too, which servers accept: masking only has to be present);
// - each connection keeps a window of frames in flight (pipelined): it writes the whole window
//   at the start, then, on each read, as many frames as replies completed, in one write;
// - replies are counted by bytes, never parsed: a server frame for a 32-byte text payload is
//   always 34 bytes (2 header bytes, no mask), so replies = bytes read / 34; sockets read into
//   one shared buffer (net's `onread`), so a read allocates nothing and emits no stream event;
// - batches adapt: a client that falls behind finds more replies waiting at its next read, so
//   its cost per message falls as the load rises (the windows leave room for that);
// - it reports its own CPU time, so a run shows the client's cost per message next to the
//   server's (the runner measures the server's): the client must stay well below 100 % of its core.
//
// Run as a child process by suites/ws.mjs (pinned to the client CPU):
//   node lib/ws-load.mjs echo   <port> <seconds> [connections=100] [window=32]
//   node lib/ws-load.mjs fanout <port> <seconds> [subscribers=1000] [window=512]
//   node lib/ws-load.mjs idle   <port> <connections>   (opens them, prints READY, holds them)
// and prints one JSON line: { messages, seconds, rps, requests, 'client CPU %', 'client µs/msg' }.
// The checks the runner does before load (checkEcho, checkFanout) are exported from here too.

import { spawnSync } from 'node:child_process';
import net from 'node:net';
import { fileURLToPath } from 'node:url';

/** The payload every client frame carries: 32 bytes of text. */
export const PAYLOAD = Buffer.from('velox ws bench: 32 bytes of text');
/** A server frame carrying PAYLOAD: FIN+text, length, payload. */
export const REPLY_SIZE = 2 + PAYLOAD.length;
const KEY = 'dmVsb3gtd3MtYmVuY2gtMQ==';
const MASK = [0x37, 0xfa, 0x21, 0x3d];

/** A masked client text frame for a payload under 126 bytes. */
export function clientFrame(payload = PAYLOAD) {
  if (payload.length > 125) throw new Error('clientFrame: payload over 125 bytes');
  const frame = Buffer.alloc(6 + payload.length);
  frame[0] = 0x81;
  frame[1] = 0x80 | payload.length;
  for (let i = 0; i < 4; i++) frame[2 + i] = MASK[i];
  for (let i = 0; i < payload.length; i++) frame[6 + i] = payload[i] ^ MASK[i & 3];
  return frame;
}

/** Opens a WebSocket over a raw socket; resolves once the 101 arrived. */
export function open(port, path, host = '127.0.0.1') {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ port, host, noDelay: true });
    let head = Buffer.alloc(0);
    const fail = (err) => {
      socket.destroy();
      reject(err);
    };
    const onData = (chunk) => {
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf('\r\n\r\n');
      if (end < 0) return;
      socket.off('data', onData);
      socket.off('error', fail);
      const status = head.subarray(0, end).toString('latin1').split('\r\n')[0];
      if (!status.startsWith('HTTP/1.1 101')) return fail(new Error(`${path}: the upgrade was answered "${status}"`));
      socket.on('error', () => {});
      resolve({ socket, rest: head.subarray(end + 4) });
    };
    socket.on('data', onData);
    socket.once('error', fail);
    socket.once('connect', () => {
      socket.write(
        `GET ${path} HTTP/1.1\r\nHost: ${host}:${port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
          `Sec-WebSocket-Key: ${KEY}\r\nSec-WebSocket-Version: 13\r\n\r\n`,
      );
    });
  });
}

/** Opens `count` WebSockets, `batch` handshakes at a time (the listen backlog is finite). */
export async function openMany(port, path, count, batch = 250) {
  const sockets = [];
  for (let i = 0; i < count; i += batch) {
    const n = Math.min(batch, count - i);
    sockets.push(...(await Promise.all(Array.from({ length: n }, () => open(port, path)))));
  }
  return sockets;
}

/** Parses the server frames in a buffer (unmasked, payloads under 126 bytes): [{ opcode, text }]. */
export function parseFrames(buffer) {
  const frames = [];
  let i = 0;
  while (i + 2 <= buffer.length) {
    const len = buffer[i + 1] & 0x7f;
    if (len > 125 || i + 2 + len > buffer.length) break;
    frames.push({ opcode: buffer[i] & 0x0f, fin: (buffer[i] & 0x80) !== 0, text: buffer.subarray(i + 2, i + 2 + len).toString() });
    i += 2 + len;
  }
  return frames;
}

function collect(socket, rest, count, ms = 5000) {
  return new Promise((resolve, reject) => {
    let buffer = rest;
    const timer = setTimeout(() => reject(new Error(`got ${parseFrames(buffer).length} of ${count} frames within ${ms} ms`)), ms);
    const check = () => {
      const frames = parseFrames(buffer);
      if (frames.length >= count) {
        clearTimeout(timer);
        socket.off('data', onData);
        resolve(frames);
      }
    };
    const onData = (chunk) => {
      buffer = Buffer.concat([buffer, chunk]);
      check();
    };
    socket.on('data', onData);
    check();
  });
}

/** The check before load: two connections each get their own three messages back, as text. */
export async function checkEcho(port) {
  const conns = await Promise.all([open(port, '/echo'), open(port, '/echo')]);
  try {
    await Promise.all(
      conns.map(async ({ socket, rest }, c) => {
        const texts = [0, 1, 2].map((i) => `echo ${c}.${i} ${'x'.repeat(i * 40)}`);
        const got = collect(socket, rest, 3);
        socket.write(Buffer.concat(texts.map((t) => clientFrame(Buffer.from(t)))));
        const frames = await got;
        const seen = frames.map((f) => `${f.opcode}:${f.text}`);
        const want = texts.map((t) => `1:${t}`);
        if (seen.join('\n') !== want.join('\n')) throw new Error(`echo answered ${JSON.stringify(seen)} to ${JSON.stringify(want)}`);
      }),
    );
    // The size the generator counts replies by.
    const { socket, rest } = conns[0];
    const got = collect(socket, rest, 1);
    socket.write(clientFrame());
    const [frame] = await got;
    if (frame.text !== PAYLOAD.toString() || 2 + Buffer.byteLength(frame.text) !== REPLY_SIZE) throw new Error('echo reply is not the 34-byte frame the load counts');
  } finally {
    for (const { socket } of conns) socket.destroy();
  }
}

/** The check before load: 20 subscribers each get the publisher's three messages, in order; the publisher none. */
export async function checkFanout(port) {
  const subs = await openMany(port, '/sub', 20);
  const pub = await open(port, '/pub');
  try {
    const texts = ['first', 'second', PAYLOAD.toString()];
    const all = subs.map(({ socket, rest }) => collect(socket, rest, 3));
    pub.socket.write(Buffer.concat(texts.map((t) => clientFrame(Buffer.from(t)))));
    for (const frames of await Promise.all(all)) {
      const seen = frames.map((f) => f.text);
      if (seen.join('\n') !== texts.join('\n')) throw new Error(`a subscriber got ${JSON.stringify(seen)}`);
    }
    let echoed = 0;
    pub.socket.on('data', (d) => (echoed += d.length));
    await new Promise((r) => setTimeout(r, 100));
    if (echoed > 0) throw new Error('the publisher received its own messages');
  } finally {
    for (const { socket } of [...subs, pub]) socket.destroy();
  }
}

/** One buffer every load socket reads into: replies are counted, never kept. */
const SHARED = Buffer.allocUnsafe(256 * 1024);

/**
 * Opens a WebSocket whose reads only report their size to `onBytes(n)` (after the 101, whose
 * head is parsed here). Resolves to the socket once upgraded.
 */
function openCounting(port, path, onBytes, host = '127.0.0.1') {
  return new Promise((resolve, reject) => {
    let head = null;
    let upgraded = false;
    const socket = net.connect({
      port,
      host,
      noDelay: true,
      onread: {
        buffer: SHARED,
        callback(nread, buf) {
          if (upgraded) return void onBytes(nread);
          head = head ? Buffer.concat([head, buf.subarray(0, nread)]) : Buffer.from(buf.subarray(0, nread));
          const end = head.indexOf('\r\n\r\n');
          if (end < 0) return;
          const status = head.subarray(0, end).toString('latin1').split('\r\n')[0];
          if (!status.startsWith('HTTP/1.1 101')) {
            socket.destroy();
            return void reject(new Error(`${path}: the upgrade was answered "${status}"`));
          }
          upgraded = true;
          socket.off('error', reject);
          socket.on('error', () => {});
          resolve(socket);
          if (head.length > end + 4) onBytes(head.length - end - 4);
        },
      },
    });
    socket.once('error', reject);
    socket.once('connect', () => {
      socket.write(
        `GET ${path} HTTP/1.1\r\nHost: ${host}:${port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
          `Sec-WebSocket-Key: ${KEY}\r\nSec-WebSocket-Version: 13\r\n\r\n`,
      );
    });
  });
}

/** Opens `count` counting sockets, `batch` handshakes at a time; `make(i)` gives each its byte counter. */
async function openCountingMany(port, path, count, make, batch = 250) {
  const sockets = [];
  for (let i = 0; i < count; i += batch) {
    const n = Math.min(batch, count - i);
    sockets.push(...(await Promise.all(Array.from({ length: n }, (_, j) => openCounting(port, path, make(i + j))))));
  }
  return sockets;
}

/**
 * Echo load: `connections` sockets, `window` frames in flight on each: every completed reply is
 * answered with a new frame, all of one read's in one write. Counts replies for `seconds`.
 */
async function echoLoad(port, seconds, connections, window) {
  const frame = clientFrame();
  const frames = Buffer.concat(Array.from({ length: window }, () => frame));
  let counting = false;
  let counted = 0;
  const sockets = [];
  const conns = await openCountingMany(port, '/echo', connections, (i) => {
    let bytes = 0;
    let replies = 0;
    return (n) => {
      bytes += n;
      const done = Math.floor(bytes / REPLY_SIZE);
      const k = done - replies;
      if (k === 0) return;
      replies = done;
      if (!counting) return;
      counted += k;
      sockets[i].write(k >= window ? frames : frames.subarray(0, k * frame.length));
    };
  });
  sockets.push(...conns);
  return measure(seconds, conns, () => counted, (on) => {
    counting = on;
    if (on) for (const socket of conns) socket.write(frames);
  });
}

/**
 * Fan-out load: one publisher, `subscribers` sockets on the topic. The publisher keeps up to
 * `window` messages in flight (published, not yet delivered to the average subscriber) and
 * tops up only when half of them arrived, so each of its writes carries many messages.
 */
async function fanoutLoad(port, seconds, subscribers, window) {
  const frame = clientFrame();
  const frames = Buffer.concat(Array.from({ length: window }, () => frame));
  let sent = 0;
  let delivered = 0;
  let counting = false;
  let counted = 0;
  let pub = null;
  const pump = () => {
    const inFlight = sent - Math.floor(delivered / subscribers);
    if (inFlight > window / 2) return;
    const k = window - inFlight;
    sent += k;
    pub.write(k === window ? frames : frames.subarray(0, k * frame.length));
  };
  const subs = await openCountingMany(port, '/sub', subscribers, () => {
    let bytes = 0;
    let frames = 0;
    return (n) => {
      bytes += n;
      const done = Math.floor(bytes / REPLY_SIZE);
      const k = done - frames;
      if (k === 0) return;
      frames = done;
      delivered += k;
      if (!counting) return;
      counted += k;
      pump();
    };
  });
  pub = await openCounting(port, '/pub', () => {});
  return measure(seconds, [...subs, pub], () => counted, (on) => {
    counting = on;
    if (on) pump();
  });
}

/** Starts the load, counts for `seconds`, and reports messages and the client's own CPU. */
async function measure(seconds, conns, count, run) {
  const cpu0 = process.cpuUsage();
  const t0 = process.hrtime.bigint();
  run(true);
  await new Promise((r) => setTimeout(r, seconds * 1000));
  const messages = count();
  const elapsed = Number(process.hrtime.bigint() - t0) / 1e9;
  const cpu = process.cpuUsage(cpu0);
  run(false);
  // A reset leaves no TIME_WAIT behind: the runner opens new connections for every slice.
  for (const socket of conns) socket.resetAndDestroy();
  const cpuUs = cpu.user + cpu.system;
  return {
    messages,
    seconds: elapsed,
    rps: messages / elapsed,
    // Named for the tables they show up in (a scenario's extraFigures).
    'client CPU %': (cpuUs / (elapsed * 1e6)) * 100,
    'client µs/msg': messages > 0 ? cpuUs / messages : 0,
    requests: messages,
  };
}

/** Idle connections for the RSS probe: opens them, prints READY, holds them until killed. */
async function idle(port, connections) {
  // 10,000 sockets need more than the usual 1,024 open files (best effort: the hard limit, or root).
  spawnSync('prlimit', ['--pid', String(process.pid), '--nofile=65536:65536'], { stdio: 'ignore' });
  const conns = await openMany(port, '/idle', connections, 200);
  process.stdout.write(`READY ${conns.length}\n`);
  process.on('SIGTERM', () => {
    for (const { socket } of conns) socket.resetAndDestroy();
    process.exit(0);
  });
  setInterval(() => {}, 1 << 30);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [mode, port, a, b, c] = process.argv.slice(2);
  const num = (value, fallback) => (value === undefined ? fallback : Number(value));
  let result;
  if (mode === 'echo') result = await echoLoad(Number(port), num(a, 1), num(b, 100), num(c, 32));
  else if (mode === 'fanout') result = await fanoutLoad(Number(port), num(a, 1), num(b, 1000), num(c, 512));
  else if (mode === 'idle') await idle(Number(port), num(a, 10_000));
  else {
    process.stderr.write('usage: node lib/ws-load.mjs echo|fanout <port> <seconds> [...], or idle <port> <connections>\n');
    process.exit(2);
  }
  if (result) {
    process.stdout.write(`${JSON.stringify(result)}\n`);
    process.exit(0);
  }
}

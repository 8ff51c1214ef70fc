// The flood of the `session-flood` scenario: cookie-less GET /anon requests, each of which makes
// the server store a new session (a visit counter for an anonymous visitor). Not a server: a load
// generator the suite runs as a child process, beside wrk, on the client CPU.
//
//   node servers/session/flood-client.mjs fill <port> <count> [connections=8] [window=64]
//     sends exactly <count> requests, <window> in flight on each connection, waits for every
//     answer, prints one JSON line { answered, seconds } and exits (filling a store to its cap);
//   node servers/session/flood-client.mjs rate <port> <per second> [connections=16]
//     sends requests at a fixed rate, pipelined over keep-alive connections (at most 256 in flight
//     on each: a server that falls behind lowers the rate reached, it does not grow a queue here),
//     prints READY once its connections are open, and stops when its stdin closes or receives a
//     line; then prints one JSON line { sent, answered, non2xx, seconds, rps, 'client CPU %' }.
//
// Answers are counted by their status lines and checked for 2xx; any other is counted (fill:
// fails the run).

import net from 'node:net';

const [mode, portArg, amountArg, connectionsArg, windowArg] = process.argv.slice(2);
const port = Number(portArg);
const amount = Number(amountArg);
if (!['fill', 'rate'].includes(mode) || !(port > 0) || !(amount > 0)) {
  process.stderr.write('usage: flood-client.mjs fill <port> <count> [connections] [window] | rate <port> <per second> [connections]\n');
  process.exit(2);
}
const connections = Number(connectionsArg ?? (mode === 'fill' ? 8 : 16));
const window = Number(windowArg ?? 64);
const MAX_IN_FLIGHT = 256;

const REQUEST = Buffer.from(`GET /anon HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`);
const MANY = Buffer.concat(Array.from({ length: Math.max(window, MAX_IN_FLIGHT) }, () => REQUEST));

let sent = 0;
let answered = 0;
let non2xx = 0;

/** One keep-alive connection: `send(n)` pipelines n requests; answers are counted as they complete. */
function connect(onAnswers) {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ port, host: '127.0.0.1', noDelay: true });
    const conn = {
      inFlight: 0,
      send(n) {
        if (n <= 0) return;
        conn.inFlight += n;
        sent += n;
        socket.write(MANY.subarray(0, n * REQUEST.length));
      },
      close: () => socket.destroy(),
    };
    // Answers are counted by their status lines ("HTTP/1.1 200 "), never parsed whole: the body of
    // /anon is "ok", so a status line cannot hide in it. A status line cut in two by a read is kept
    // for the next one.
    let carry = '';
    socket.setEncoding('latin1');
    socket.once('connect', () => resolve(conn));
    socket.on('error', reject);
    socket.on('data', (chunk) => {
      const text = carry + chunk;
      let done = 0;
      let at = text.indexOf('HTTP/1.1 ');
      let end = 0;
      while (at >= 0 && at + 12 <= text.length) {
        if (text.charCodeAt(at + 9) !== 50 /* '2' */) non2xx++;
        done++;
        end = at + 12;
        at = text.indexOf('HTTP/1.1 ', end);
      }
      carry = at >= 0 ? text.slice(at) : text.slice(Math.max(end, text.length - 11));
      if (done > 0) {
        conn.inFlight -= done;
        answered += done;
        onAnswers(conn, done);
      }
    });
  });
}

const started = performance.now();

if (mode === 'fill') {
  let finish;
  const finished = new Promise((resolve) => (finish = resolve));
  const top = (conn) => {
    const n = Math.min(window - conn.inFlight, amount - sent);
    conn.send(n);
    if (answered === amount) finish();
  };
  const conns = await Promise.all(Array.from({ length: Math.min(connections, amount) }, () => connect(top)));
  for (const conn of conns) top(conn);
  await finished;
  for (const conn of conns) conn.close();
  if (non2xx > 0) {
    process.stderr.write(`${non2xx} of ${answered} answers to GET /anon were not 2xx\n`);
    process.exit(1);
  }
  process.stdout.write(`${JSON.stringify({ answered, seconds: (performance.now() - started) / 1000 })}\n`);
} else {
  const conns = await Promise.all(Array.from({ length: connections }, () => connect(() => {})));
  const begin = performance.now();
  const cpuStart = process.cpuUsage();
  let next = 0;
  // Every 5 ms, send what the rate says is due by now, round-robin over the connections (a timer
  // of 1 ms costs more CPU in wake-ups than the requests themselves at a few thousand a second).
  const timer = setInterval(() => {
    let due = Math.floor(((performance.now() - begin) / 1000) * amount) - sent;
    for (let tries = 0; due > 0 && tries < conns.length; tries++) {
      const conn = conns[next];
      next = (next + 1) % conns.length;
      const n = Math.min(due, Math.ceil(due / conns.length), MAX_IN_FLIGHT - conn.inFlight);
      if (n > 0) {
        conn.send(n);
        due -= n;
        tries = -1; // something went out: go round again
      }
    }
  }, 5);
  process.stdout.write('READY\n');
  const stop = () => {
    clearInterval(timer);
    const seconds = (performance.now() - begin) / 1000;
    const cpu = process.cpuUsage(cpuStart);
    for (const conn of conns) conn.close();
    const figures = { sent, answered, non2xx, seconds, rps: answered / seconds, 'client CPU %': Math.round((cpu.user + cpu.system) / 1e3 / seconds) / 10 };
    process.stdout.write(`${JSON.stringify(figures)}\n`);
    process.exit(0);
  };
  process.stdin.once('data', stop);
  process.stdin.once('end', stop);
  process.stdin.resume();
}

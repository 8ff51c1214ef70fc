// The idle-connection client of the fetch and express-app suites: opens <connections> keep-alive connections to
// 127.0.0.1:<port>, sends one `GET /` on each and reads its answer (so every connection has
// served a request, as a browser's idle connection has), prints `READY <open>` and holds them;
// prints `OPEN <n>` whenever asked on stdin (a line), so the probe can tell how many the server
// kept open when it measured. Run by lib/idle-probe.mjs on the client CPU:
//   node lib/idle-client.mjs <port> <connections>
import { spawnSync } from 'node:child_process';
import net from 'node:net';

const [portArg, countArg] = process.argv.slice(2);
const port = Number(portArg);
const count = Number(countArg ?? 5000);
spawnSync('prlimit', ['--pid', String(process.pid), `--nofile=${count + 1024}:${count + 1024}`], { stdio: 'ignore' });

let open = 0;
const sockets = [];

function one() {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    let answered = false;
    socket.on('connect', () => socket.write('GET / HTTP/1.1\r\nHost: bench\r\n\r\n'));
    socket.on('data', (d) => {
      if (!answered && d.includes('Hi')) {
        answered = true;
        open++;
        resolve();
      }
    });
    socket.on('close', () => {
      if (answered) open--;
      else reject(new Error('closed before its answer'));
    });
    socket.on('error', () => {});
    sockets.push(socket);
  });
}

for (let i = 0; i < count; i += 100) {
  await Promise.all(Array.from({ length: Math.min(100, count - i) }, one));
}
process.stdout.write(`READY ${open}\n`);
process.stdin.on('data', () => process.stdout.write(`OPEN ${open}\n`));

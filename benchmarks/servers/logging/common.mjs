// What both logging servers share: the route and where the log lines go. Both write pino JSON
// lines to the same place (BENCH_LOG_FILE, default /dev/null) through an asynchronous pino
// destination, so the figures compare the frameworks' logging paths, not a terminal or a pipe.
import pino from 'pino';

/** A pino 10 logger at level info, as each framework gets it. */
export function benchLogger() {
  return pino({ level: 'info' }, pino.destination({ dest: process.env.BENCH_LOG_FILE ?? '/dev/null', sync: false }));
}

/** The answer of GET /users/:id. */
export function user(id) {
  return { id, name: 'velox' };
}

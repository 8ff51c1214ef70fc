// Every benchmark suite, in the order of its section in RESULTS.md. Each module's default
// export is one suite (see benchmarks/README.md, "Suites"). Fill in a suite's own file;
// this list does not need to change.

import cluster from './cluster.mjs';
import core from './core.mjs';
import expressApp from './express-app.mjs';
import expressMw from './express-mw.mjs';
import fetchSuite from './fetch.mjs';
import logging from './logging.mjs';
import multipart from './multipart.mjs';
import session from './session.mjs';
import stack from './stack.mjs';
import staticFiles from './static.mjs';
import tracing from './tracing.mjs';
import ws from './ws.mjs';

export const SUITES = [core, session, staticFiles, multipart, ws, cluster, expressMw, fetchSuite, expressApp, logging, tracing, stack];

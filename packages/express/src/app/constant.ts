/**
 * Constant routes of the Express 4 entry: a GET route whose one handler can only ever give the
 * same answer (`app.get('/', (req, res) => res.send('Hi'))`: calls on `res` with literal
 * arguments, nothing else) is answered by uWS itself once the app listens, from the bytes the
 * app's own code gave for it once (core's `constantRoute()`), without running JavaScript.
 *
 * Why the answer is the app's own: after `listen()` the route is requested once over loopback,
 * through the whole Express path (expressInit, the router, `res.send` with the app's settings),
 * and that answer's status, headers and body become the constant one. Which handlers qualify is
 * decided from their source text, parsed with acorn (the only file that imports it): a handler
 * that reads anything (the request, a variable, a setting at run time) or calls anything but
 * `res`'s own answering methods is left to the normal path. So is every route that something
 * could reach first or change: a middleware or another route before it, `app.param()`, a
 * replaced response method, a custom query parser or ETag function, strict routing, request
 * logging, a subscriber of core's diagnostics channels at listen time.
 *
 * What a constant answer leaves out (README, "Constant routes"): the ETag (a tag uWS cannot
 * compare with If-None-Match: without one, a conditional request gets the 200 HTTP requires),
 * Connection and Keep-Alive (uWS keeps or closes the connection as the request asks), and the
 * `Date` is uWS's. `app.set('velox constant routes', false)` turns the feature off.
 */
import * as http from 'node:http';
import { channel } from 'node:diagnostics_channel';
import { channelNames, type Server } from '@velox/core';
import { parseExpressionAt } from 'acorn';
import { kInline, type Layer, type Router } from './router.ts';

/** The setting that turns constant routes off (`app.set('velox constant routes', false)`). */
export const CONSTANT_SETTING = 'velox constant routes';

/** The answering methods of `res` a constant handler may call, each with literal arguments. */
const CHAINED = new Set(['set', 'header', 'type', 'status']);
const FINAL = new Set(['send', 'json', 'end', 'sendStatus']);
/** What Express's response calls on the way: none may be replaced for a route to be constant. */
const RESPONSE_METHODS = ['set', 'header', 'type', 'status', 'send', 'json', 'end', 'sendStatus', 'setHeader', 'get', 'contentType', 'writeHead', 'write'];

/** Headers of the probe's answer that a constant answer does not repeat (see the file's comment). */
const LEFT_OUT = new Set(['date', 'content-length', 'connection', 'keep-alive', 'etag', 'transfer-encoding']);

interface Node {
  type: string;
  [key: string]: any;
}

/** A literal argument: a string, number, boolean or null, a template without `${}`, or an array or plain object of them. */
function isLiteral(node: Node): boolean {
  switch (node.type) {
    case 'Literal':
      return node.regex === undefined && node.bigint === undefined;
    case 'TemplateLiteral':
      return node.expressions.length === 0;
    case 'UnaryExpression':
      return node.operator === '-' && node.argument.type === 'Literal' && typeof node.argument.value === 'number';
    case 'ArrayExpression':
      return node.elements.every((element: Node | null) => element !== null && isLiteral(element));
    case 'ObjectExpression':
      return node.properties.every(
        (p: Node) =>
          p.type === 'Property' &&
          p.kind === 'init' &&
          !p.computed &&
          !p.method &&
          !p.shorthand &&
          (p.key.type === 'Identifier' || (p.key.type === 'Literal' && typeof p.key.value === 'string')) &&
          p.key.name !== '__proto__' &&
          p.key.value !== '__proto__' &&
          isLiteral(p.value),
      );
    default:
      return false;
  }
}

/**
 * Whether `call` is `res.m(literals…)`, or a chain of them (`res.set(…).type(…).send(…)`), whose
 * last call is `final` (send/json/end/sendStatus) or, when `final` is false, a chained setter.
 */
function isResCall(call: Node, res: string, final: boolean): boolean {
  if (call.type !== 'CallExpression' || call.optional) return false;
  const callee = call.callee;
  if (callee.type !== 'MemberExpression' || callee.computed || callee.optional || callee.property.type !== 'Identifier') return false;
  const name: string = callee.property.name;
  if (!(final ? FINAL.has(name) : CHAINED.has(name))) return false;
  if (!call.arguments.every(isLiteral)) return false;
  const target = callee.object;
  if (target.type === 'Identifier') return target.name === res;
  // Express's set/header/type/status return `res`: a chain of them may lead to the call.
  return isResCall(target, res, false);
}

/**
 * Whether a handler's source is one of the constant forms: `(req, res) => res.send('Hi')`,
 * `function (req, res) { res.set('X-A', 'b'); res.json({ ok: true }); }`, … (not async, no
 * default or destructured parameters, setters then exactly one final call, literals only).
 */
export function isConstantHandler(fn: unknown): boolean {
  if (typeof fn !== 'function') return false;
  let node: Node;
  try {
    const source = Function.prototype.toString.call(fn);
    node = parseExpressionAt(source, 0, { ecmaVersion: 'latest' }) as unknown as Node;
    if (node.end !== source.length) return false;
  } catch {
    return false; // a method, a class, a bound or native function: not a plain function's source
  }
  if (node.type !== 'ArrowFunctionExpression' && node.type !== 'FunctionExpression') return false;
  if (node.async || node.generator) return false;
  const params: Node[] = node.params;
  if (params.length < 2 || params.length > 3 || !params.every((p) => p.type === 'Identifier')) return false;
  const res: string = params[1]!.name;
  if (params.some((p, i) => i !== 1 && p.name === res)) return false;
  const body: Node = node.body;
  if (body.type !== 'BlockStatement') return isResCall(body, res, true);
  const statements: Node[] = body.body;
  if (statements.length === 0 || !statements.every((s) => s.type === 'ExpressionStatement')) return false;
  const last = statements.length - 1;
  return statements.every((s, i) => isResCall(s.expression, res, i === last));
}

/** Whether anything but Express's own answering code could change what the app answers a route with. */
function appIsPlain(application: any, flavorResponse: Record<string, unknown>): boolean {
  if (application.get(CONSTANT_SETTING) === false) return false;
  if (application.enabled('strict routing')) return false;
  const settings = application.settings;
  if (typeof settings['query parser'] === 'function' || typeof settings.etag === 'function') return false;
  // No answering method replaced between the app's response prototype and Express's own.
  let proto: object | null = application.response as object;
  while (proto !== flavorResponse) {
    if (proto === null) return false;
    const own = proto;
    if (RESPONSE_METHODS.some((name) => Object.hasOwn(own, name))) return false;
    proto = Object.getPrototypeOf(proto);
  }
  // A subscriber of core's channels (OpenTelemetry, a logger) expects to see every request.
  return !Object.values(channelNames).some((name) => channel(name).hasSubscribers);
}

/**
 * The paths of the app's constant routes: plain GET routes with one constant handler, with
 * nothing before them in the app's stack but Express's own query and expressInit layers and
 * routes that match neither the path nor its trailing-slash twin.
 */
export function constantPaths(application: any, flavorResponse: Record<string, unknown>): string[] {
  // The Express 4 entry only: its router is router.ts, whose layers this reads.
  if (typeof application.lazyrouter !== 'function') return [];
  const router = application._router as Router | undefined;
  if (router === undefined || !appIsPlain(application, flavorResponse)) return [];
  if (Object.keys(router.params).length > 0 || router.paramTransforms.length > 0) return [];
  const stack = router.stack;
  // Express's own first two layers (query, expressInit: the functions with an in-place body), unchanged.
  const own = (layer: Layer | undefined) => layer !== undefined && layer.original && layer.route === undefined && typeof (layer.handle as { [kInline]?: unknown })[kInline] === 'function';
  if (!own(stack[0]) || !own(stack[1])) return [];
  const paths: string[] = [];
  const earlier: Layer[] = [];
  for (let i = 2; i < stack.length; i += 1) {
    const layer = stack[i]!;
    const route = layer.route;
    if (route === undefined) break; // a middleware: it may run before any later route
    const path: unknown = route.path;
    const plain =
      typeof path === 'string' &&
      layer.plainRoute !== undefined &&
      layer.original &&
      /^\/[A-Za-z0-9\-._~!$&'(),;=@/]*$/.test(path) &&
      !/[()]/.test(path) &&
      Object.keys(route.methods).join() === 'get' &&
      route.stack.length === 1 &&
      route.stack[0]!.original &&
      isConstantHandler(route.stack[0]!.handle);
    if (plain) {
      const twin = path === '/' ? path : path.endsWith('/') ? path.slice(0, -1) : `${path}/`;
      const reachedFirst = earlier.some((other) => other.match(path) || other.match(twin));
      if (!reachedFirst && !paths.includes(path) && !paths.includes(twin)) paths.push(path);
    }
    earlier.push(layer);
  }
  return paths;
}

/** One answer over loopback: status, headers as sent (raw pairs), body. */
function probe(port: number, host: string, path: string): Promise<{ status: number; headers: string[]; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const request = http.request({ host, port, path, method: 'GET', agent: false, headers: { connection: 'close' } }, (answer) => {
      const chunks: Buffer[] = [];
      answer.on('data', (chunk: Buffer) => chunks.push(chunk));
      answer.on('end', () => resolve({ status: answer.statusCode ?? 0, headers: answer.rawHeaders, body: Buffer.concat(chunks) }));
      answer.on('error', reject);
    });
    request.setTimeout(5000, () => request.destroy(new Error('no answer in 5 s')));
    request.on('error', reject);
    request.end();
  });
}

/**
 * After `listen()`: requests each constant route once and hands its answer to core as a
 * constant route. A route whose answer is not a plain 200 (a status, a cookie, a body that is
 * not UTF-8 text) stays on the normal path; so does every route when anything fails.
 */
export async function mountConstantRoutes(server: Server, paths: string[], port: number, listenedOn: string): Promise<void> {
  // Every address (and a dual-stack ::) answers on IPv4 loopback.
  const host = listenedOn === '0.0.0.0' || listenedOn === '::' || listenedOn === '' ? '127.0.0.1' : listenedOn;
  for (const path of paths) {
    try {
      const answer = await probe(port, host, path);
      if (answer.status !== 200) continue;
      const headers: Array<[string, string]> = [];
      let plain = true;
      for (let i = 0; i < answer.headers.length; i += 2) {
        const name = answer.headers[i]!;
        const lower = name.toLowerCase();
        if (lower === 'set-cookie' || lower === 'vary') plain = false;
        if (!LEFT_OUT.has(lower) && lower !== 'uwebsockets') headers.push([name, answer.headers[i + 1]!]);
      }
      const body = answer.body.toString('utf8');
      if (!plain || !Buffer.from(body, 'utf8').equals(answer.body)) continue;
      server.constantRoute(path, { headers, body });
    } catch {
      // The route keeps its normal path: nothing is lost but speed.
    }
  }
}

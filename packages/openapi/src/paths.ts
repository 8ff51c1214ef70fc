/**
 * Route patterns in OpenAPI's terms: `/orders/:orderId/*` becomes the path template
 * `/orders/{orderId}/{wildcard}`, and operation ids are made from the method and the pattern
 * when a route gives none.
 */

/** The name a trailing `/*` goes by in the document (`req.params['*']` in the handler). */
export const WILDCARD = 'wildcard';

/** A pattern's parameters in order, each with the name the document gives it and the key it has in `req.params`. */
export interface PathParameter {
  /** The name in the template and the document. */
  name: string;
  /** The key in `req.params` (and in a `validate({ params })` schema). */
  key: string;
  wildcard: boolean;
}

/** The path template of a pattern and its parameters. */
export function template(pattern: string): { path: string; parameters: PathParameter[] } {
  const parameters: PathParameter[] = [];
  const names = new Set(pattern.split('/').filter((s) => s.startsWith(':')).map((s) => s.slice(1)));
  const segments = pattern.split('/').map((segment) => {
    if (segment.startsWith(':')) {
      const name = segment.slice(1);
      parameters.push({ name, key: name, wildcard: false });
      return `{${name}}`;
    }
    if (segment === '*') {
      let name = WILDCARD;
      while (names.has(name)) name = `_${name}`;
      parameters.push({ name, key: '*', wildcard: true });
      return `{${name}}`;
    }
    return segment;
  });
  return { path: segments.join('/') || '/', parameters };
}

/** `getOrdersByOrderIdLines` for `GET /orders/:orderId/lines`; `getRoot` for `GET /`. */
export function generatedOperationId(method: string, pattern: string): string {
  let id = method.toLowerCase();
  let any = false;
  for (const segment of pattern.split('/')) {
    if (segment === '') continue;
    any = true;
    if (segment.startsWith(':')) id += `By${words(segment.slice(1))}`;
    else if (segment === '*') id += 'Wildcard';
    else id += words(segment);
  }
  return any ? id : `${id}Root`;
}

/** `order-lines.v2` as `OrderLinesV2`. */
function words(text: string): string {
  return text
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((w) => w[0]!.toUpperCase() + w.slice(1))
    .join('');
}

/** Whether two patterns differ only by a trailing slash. */
export function sameButSlash(a: string, b: string): boolean {
  return a !== b && a.replace(/\/$/, '') === b.replace(/\/$/, '');
}

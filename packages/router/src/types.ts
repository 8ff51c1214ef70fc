/**
 * The handler types of router routes: core's {@link RouteHandler}, with the parameters a
 * router's mount prefix brings (its `Base` type parameter) merged into `req.params`.
 */
import type { ParamsOf, RouteHandler, TypedMiddleware } from '@velox/core';

type Simplify<T> = { [K in keyof T]: T[K] } & {};

/**
 * The handler of a route registered on a `Router<Base>`: `req.params` is typed from the pattern
 * and `Base`; what the route's typed middlewares add is merged into `req`.
 *
 * @example
 * ```ts
 * const show: RouterHandler<{ org: string }, '/members/:id', []> = (req, res) =>
 *   res.json({ org: req.params.org, id: req.params.id });
 * ```
 */
export type RouterHandler<Base extends object, Path extends string, M extends readonly unknown[]> = {} extends Base
  ? RouteHandler<Path, M>
  : RouteHandler<Path, [TypedMiddleware<{ params: Simplify<Base & ParamsOf<Path>> }>, ...M]>;


/**
 * Decorations: the properties plugins add to requests and responses (`decorateRequest()`,
 * `decorateResponse()`), checked for clashes with core's members and with each other.
 */
import { ErrorCodes, invalidOption, VeloxError } from './errors.ts';
import { placeholderOn } from './placeholders.ts';

/**
 * A property added to every request or response by {@link Server.decorateRequest} or
 * {@link Server.decorateResponse}: a method or value (`value`), or an accessor (`get`, and
 * `set` if it may be assigned). Functions are called with the request (or response) as `this`.
 */
export type Decoration<Target> =
  | { value: unknown; get?: never; set?: never }
  | { get: (this: Target) => unknown; set?: (this: Target, value: any) => void; value?: never };

/** Properties decorations added, by prototype, with their definitions (to accept the same one twice). */
const decorated = new WeakMap<object, Map<PropertyKey, PropertyDescriptor>>();

/** Defines a decoration on a prototype, or throws `VELOX_ERR_DECORATION_CONFLICT` when the name is taken. */
export function decorate(proto: object, kind: 'Request' | 'Response', name: string | symbol, definition: Decoration<any>): void {
  if (!((typeof name === 'string' && name !== '') || typeof name === 'symbol') || !definition || typeof definition !== 'object') {
    throw invalidOption(`decorate${kind}() takes a property name (a string or a symbol) and { value } or { get, set? }`);
  }
  const label = String(name);
  const hasValue = 'value' in definition && definition.value !== undefined;
  if (hasValue === (typeof definition.get === 'function')) {
    throw invalidOption(`decorate${kind}("${label}") takes either { value } or { get, set? }`);
  }
  const descriptor: PropertyDescriptor = hasValue
    ? { value: definition.value, writable: true, configurable: true, enumerable: false }
    : { get: definition.get, set: definition.set, configurable: true, enumerable: false };
  let own = decorated.get(proto);
  const previous = own?.get(name);
  if (previous) {
    if (previous.value === descriptor.value && previous.get === descriptor.get && previous.set === descriptor.set) return;
    throw new VeloxError(ErrorCodes.DECORATION_CONFLICT, `${kind} already has a decoration "${label}" with another definition`);
  }
  // A placeholder (placeholders.ts) stands for what a plugin adds: the plugin's decoration replaces it.
  if (name in proto && !(typeof name === 'string' && placeholderOn(proto, name))) {
    throw new VeloxError(ErrorCodes.DECORATION_CONFLICT, `${kind} already has a property "${label}"; choose another name`);
  }
  Object.defineProperty(proto, name, descriptor);
  if (!own) decorated.set(proto, (own = new Map()));
  own.set(name, descriptor);
}

/**
 * Makes a light class stand in for a built-in one (Headers, Response): it passes `instanceof` for
 * the built-in, and every member of the built-in's prototype it does not define itself works on
 * a built-in object the light one makes when that member is used.
 */
export function standIn<T extends object>(Light: { prototype: T }, Native: { prototype: object }, toNative: (self: T) => object): void {
  Object.setPrototypeOf(Light.prototype, Native.prototype);
  Object.setPrototypeOf(Light, Native);
  for (const key of Reflect.ownKeys(Native.prototype)) {
    if (key === 'constructor' || Object.hasOwn(Light.prototype, key)) continue;
    const desc = Object.getOwnPropertyDescriptor(Native.prototype, key)!;
    if (typeof desc.value === 'function') {
      const method = desc.value as (...args: unknown[]) => unknown;
      Object.defineProperty(Light.prototype, key, {
        configurable: true,
        writable: true,
        value(this: T, ...args: unknown[]) {
          return method.apply(toNative(this), args);
        },
      });
    } else if (desc.get) {
      const get = desc.get;
      Object.defineProperty(Light.prototype, key, {
        configurable: true,
        get(this: T) {
          return get.call(toNative(this));
        },
      });
    }
  }
}

/**
 * A string-keyed record with no inherited keys that stays fast. `Object.create(null)` objects
 * start in dictionary mode in V8, where reading a key (even a missing one) cost about a
 * microsecond in our measurements; objects made by this constructor are ordinary fast objects
 * whose prototype chain ends in a frozen, empty, null-prototype object.
 */
function BagConstructor(this: object) {}
BagConstructor.prototype = Object.freeze(Object.create(null));

/** `new Bag<string>()`: an empty record with no prototype keys (`constructor`, `__proto__` are plain keys). */
export const Bag = BagConstructor as unknown as new <T = unknown>() => Record<string, T>;

/**
 * The engine's own copy of a string, the one a property key or a literal in the code is (read
 * back as an object's key): two such strings are equal only when they are the same string, so
 * comparing them, or looking them up, needs no character compare.
 */
export function internalized(text: string): string {
  return Object.keys({ [text]: 0 })[0]!;
}

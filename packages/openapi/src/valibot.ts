/**
 * The one file that knows `@valibot/to-json-schema`, Valibot's own converter (Valibot's schemas
 * do not implement Standard JSON Schema themselves). It is an optional peer dependency, loaded
 * the first time a document is built, and only used for Valibot schemas.
 */
import type { StandardSchemaV1 } from '@standard-schema/spec';

/** Converts one Valibot schema: its input or output type, with named schemas as `$defs` references. */
export type ValibotConverter = (schema: StandardSchemaV1, io: 'input' | 'output', definitions: Record<string, StandardSchemaV1>) => Record<string, unknown>;

/** Valibot's converter, or undefined when `@valibot/to-json-schema` is not installed. */
export async function loadValibot(): Promise<ValibotConverter | undefined> {
  let lib: typeof import('@valibot/to-json-schema');
  try {
    lib = await import('@valibot/to-json-schema');
  } catch {
    return undefined;
  }
  return (schema, io, definitions) =>
    lib.toJsonSchema(schema as never, {
      target: 'draft-2020-12',
      typeMode: io,
      // What cannot be expressed throws, and is reported with its route (a v.date(), a
      // v.transform() with no schema after it in output mode)…
      errorMode: 'throw',
      definitions: definitions as never,
      // …except actions that check or mark a value without changing its type (v.check(),
      // v.brand(), v.trim()): the type they act on is documented as it is, without them.
      overrideAction: ({ valibotAction, jsonSchema, errors }) =>
        errors !== undefined && keepsType(valibotAction as { kind: string; type: string }) ? jsonSchema : undefined,
    }) as Record<string, unknown>;
}

/** Transformations whose output has the JSON type of their input: string to string, or a type mark. */
const TYPE_KEEPING = new Set(['trim', 'trimStart', 'trimEnd', 'toLowerCase', 'toUpperCase', 'normalize', 'brand', 'readonly', 'flavor']);

function keepsType(action: { kind: string; type: string }): boolean {
  return action.kind !== 'transformation' || TYPE_KEEPING.has(action.type);
}

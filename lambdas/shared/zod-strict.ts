import * as z from './zod';

/**
 * The schema as a file a person writes is read: every object in it, however deep, refuses a field
 * it does not know (`Unrecognized key: "catgory"` at the object's path) where the schema itself
 * drops it. Stored items are read with the schema itself, leniently: an item an older release
 * wrote may carry attributes this one no longer reads. An object that takes any field (a catchall,
 * `z.looseObject`) is left as it is; every check and default is kept.
 */
export function strictly<S extends z.core.$ZodType>(schema: S): S {
  const as = (overrides: Record<string, unknown>): S => z.clone(schema, z.util.mergeDefs(schema._zod.def, overrides) as S['_zod']['def']);
  if (schema instanceof z.core.$ZodObject) {
    const { shape, catchall } = schema._zod.def;
    return as({ shape: Object.fromEntries(Object.entries(shape).map(([key, field]) => [key, strictly(field)])), catchall: catchall ?? z.never() });
  }
  if (schema instanceof z.core.$ZodArray) return as({ element: strictly(schema._zod.def.element) });
  if (schema instanceof z.core.$ZodOptional || schema instanceof z.core.$ZodNullable || schema instanceof z.core.$ZodDefault) return as({ innerType: strictly(schema._zod.def.innerType) });
  if (schema instanceof z.core.$ZodPipe) return as({ in: strictly(schema._zod.def.in), out: strictly(schema._zod.def.out) });
  if (schema instanceof z.core.$ZodUnion) return as({ options: schema._zod.def.options.map(strictly) });
  return schema;
}

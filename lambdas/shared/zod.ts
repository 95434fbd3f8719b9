import { config, ZodMiniISODateTime, ZodMiniNumber } from 'zod/mini';
import { en } from 'zod/locales';
import { _coercedNumber, _isoDateTime, type $ZodISODateTimeParams, type $ZodNumberParams } from 'zod/v4/core';

// zod/mini starts with no locale, so every issue would read "Invalid input"; the English messages
// are the ones our error bodies have always carried (zod's own build sets the same at import).
config(en());

/**
 * zod's tree-shakable build, with English messages: the only way code under lambdas/ imports zod
 * (`import * as z from '…/shared/zod'`). How to write a schema in it: docs/validation.md.
 */
export * from 'zod/mini';

// zod/mini's `iso` and `coerce` are namespaces inside its namespace, and esbuild keeps every export
// of a namespace reached that way: `z.iso.datetime` brought ISO date, time and duration schemas into
// every bundle, `z.coerce.number` bigint and date (about 3 KB each function). These two shadow
// them with the members lambdas/ uses, built as zod/mini builds them.
export const iso = {
  datetime: (params?: string | $ZodISODateTimeParams): ZodMiniISODateTime => _isoDateTime(ZodMiniISODateTime, params),
};
export const coerce = {
  number: (params?: string | $ZodNumberParams): ZodMiniNumber<unknown> => _coercedNumber(ZodMiniNumber, params),
};

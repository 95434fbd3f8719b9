import { config, ZodMiniISODateTime, ZodMiniNumber } from 'zod/mini';
import { en } from 'zod/locales';
import { _coercedNumber, _isoDateTime, type $ZodISODateTimeParams, type $ZodNumberParams } from 'zod/v4/core';

// zod/mini starts with no locale, so every issue would read "Invalid input"; the English messages
// are the ones our error bodies have always carried (zod's own build sets the same at import).
// `jitless`: an object schema is parsed by zod's interpreter, not by a parser zod compiles with
// `new Function` on its first use. A function parses each schema a few times a request, so the
// compiled parser did not pay back its compile in a cold start, and warm requests ran no slower
// without it (decision 118).
config({ ...en(), jitless: true });

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

import { config } from 'zod/mini';
import { en } from 'zod/locales';

// zod/mini starts with no locale, so every issue would read "Invalid input"; the English messages
// are the ones our error bodies have always carried (zod's own build sets the same at import).
config(en());

/**
 * zod's tree-shakable build, with English messages: the only way code under lambdas/ imports zod
 * (`import * as z from '…/shared/zod'`). How to write a schema in it: docs/validation.md.
 */
export * from 'zod/mini';

// Row 2's prototype rows (2d–2f) run the warm child with `--import` of this file after tsx's: the
// HTTP routes then resolve `@middy/core` and Powertools Logger to the prototypes beside it.
import { register } from 'node:module';

register('./thin-stack-hooks.mjs', import.meta.url);

// The project's root folder, for tools that read the project's own files (handlers, seeds, docs).
// CommonJS on purpose: `__dirname` means the same under tsx (which loads our TypeScript as ESM)
// and under jest (which loads it as CommonJS), where `import.meta` would not even parse.
'use strict';
module.exports = require('node:path').resolve(__dirname, '..');

// `http` for the functions' bundles (FUNCTION_BUNDLING's alias, decision 111). An ESM `import … from
// 'http'` makes Node build the module's ESM namespace, which reads every export, and `http`'s
// WebSocket, CloseEvent and MessageEvent are lazy getters that load Node's bundled undici: about
// 40 ms of every cold start, for code that never uses them. Taken as CommonJS, the getters stay
// unread. `getBuiltinModule` rather than `require`, so the alias does not apply to itself.
module.exports = process.getBuiltinModule('node:http');

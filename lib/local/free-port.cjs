// CommonJS so jest (which loads our code as CommonJS), tsx and the test run's global setup (plain
// ESM) can all load it: the local runtime and the test setup share it.
'use strict';
const { createServer } = require('node:net');

/** A port the OS reports free on 127.0.0.1 right now. */
function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

module.exports = { freePort };

/**
 * Four layers (README.md, "Tests"): unit (no network), integration (DynamoDB Local + SQS emulator),
 * e2e (the local runtime over HTTP), infra (the synthesized template).
 * Middy and other ESM-only packages are transformed to CommonJS by swc, so no VM-modules flag.
 */
const transform = {
  '^.+\\.(t|j|mj)s$': ['@swc/jest', { jsc: { parser: { syntax: 'typescript' }, target: 'es2022' }, module: { type: 'commonjs' } }],
};
const base = {
  transform,
  transformIgnorePatterns: ['/node_modules/(?!(@middy)/)'],
  moduleFileExtensions: ['ts', 'js', 'mjs', 'json'],
  setupFiles: ['<rootDir>/test/support/env.ts'],
  testEnvironment: 'node',
};
const emulators = {
  globalSetup: '<rootDir>/test/support/emulators-setup.mjs',
  globalTeardown: '<rootDir>/test/support/emulators-teardown.mjs',
};

/** @type {import('jest').Config} */
module.exports = {
  reporters: ['default', '<rootDir>/test/support/summary-reporter.js'],
  projects: [
    { ...base, displayName: 'unit', testMatch: ['<rootDir>/test/unit/**/*.test.ts'] },
    { ...base, displayName: 'infra', testMatch: ['<rootDir>/test/infra/**/*.test.ts'] },
    { ...base, ...emulators, displayName: 'integration', testMatch: ['<rootDir>/test/integration/**/*.test.ts'] },
    { ...base, ...emulators, displayName: 'e2e', testMatch: ['<rootDir>/test/e2e/**/*.test.ts'] },
  ],
};

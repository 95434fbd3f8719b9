require('./bin/node-check.cjs');
/**
 * Four layers (README.md, "Tests"): unit (no network), integration (DynamoDB Local + SQS emulator),
 * e2e (the local runtime over HTTP), infra (the synthesized template).
 * Middy (ESM-only) is transpiled to CommonJS with the project's code, so no VM-modules flag.
 * ts-jest only transpiles (`npm test` type-checks with tsc first); it is pure JavaScript, unlike
 * swc, whose non-Linux binaries the registry here does not serve (docs/decisions.md).
 */
const transform = {
  '^.+\\.(t|j|mj)s$': ['ts-jest', { tsconfig: { isolatedModules: true, module: 'commonjs', moduleResolution: 'node10', allowJs: true, esModuleInterop: true, target: 'es2022', verbatimModuleSyntax: false } }],
};
const base = {
  transform,
  transformIgnorePatterns: ['/node_modules/(?!(@middy)/)'],
  // Middy 7 exports only `import` conditions, which jest's CommonJS resolver does not follow.
  moduleNameMapper: {
    '^@middy/core/StreamifyResponse$': '<rootDir>/node_modules/@middy/core/executionModeStreamifyResponse.js',
    '^@middy/([^/]+)$': '<rootDir>/node_modules/@middy/$1/index.js',
  },
  moduleFileExtensions: ['ts', 'js', 'mjs', 'cjs', 'json'],
  setupFiles: ['<rootDir>/test/support/env.ts'],
  // Node's environment, printing a test's output only when it fails (docs/decisions.md, decision 44).
  testEnvironment: '<rootDir>/test/support/quiet-environment.ts',
};
const emulators = {
  globalSetup: '<rootDir>/test/support/emulators-setup.mjs',
  globalTeardown: '<rootDir>/test/support/emulators-teardown.mjs',
  setupFilesAfterEnv: ['<rootDir>/test/support/emulator-timeout.ts'],
};

/** @type {import('jest').Config} */
module.exports = {
  // A worker per core. Jest's default leaves one core to itself, which on a 2-core machine runs
  // every file in one process; most files wait on DynamoDB Local or the local runtime, so two
  // workers there took the same suite from 490 s to 365 s.
  maxWorkers: '100%',
  reporters: ['default', '<rootDir>/test/support/summary-reporter.cjs'],
  // Small files that are slow start first in a fresh clone, as CI runs (test/support/slow-first-sequencer.cjs).
  testSequencer: '<rootDir>/test/support/slow-first-sequencer.cjs',
  projects: [
    { ...base, displayName: 'unit', testMatch: ['<rootDir>/test/unit/**/*.test.ts'] },
    { ...base, displayName: 'infra', testMatch: ['<rootDir>/test/infra/**/*.test.ts'] },
    { ...base, ...emulators, displayName: 'integration', testMatch: ['<rootDir>/test/integration/**/*.test.ts'] },
    { ...base, ...emulators, displayName: 'e2e', testMatch: ['<rootDir>/test/e2e/**/*.test.ts'] },
  ],
};

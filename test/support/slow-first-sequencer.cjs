// Jest starts the test files it last saw take longest first (its cache), so no worker is left with
// one long file at the end. A fresh clone, as CI runs, has no cache, and jest falls back to file
// size: these files are small and slow (a synth that bundles every function, a 15 000-row report
// page, property runs over every route, DynamoDB Local killed and restarted, eleven synths), so they
// started last, and a fresh run ended with one worker on one of them alone for about 45 s. Without a
// cached time they go first, in this order; with one, jest's own order stands.
const Sequencer = require('@jest/test-sequencer').default;

const SLOW_FIRST = [
  'test/e2e/large-report-page.test.ts',
  'test/infra/bundles.test.ts',
  'test/integration/input-properties.test.ts',
  'test/e2e/failure.test.ts',
  'test/infra/stack-settings.test.ts',
];

class SlowFirstSequencer extends Sequencer {
  sort(tests) {
    const ordered = super.sort(tests);
    const rank = (test) => {
      const slow = SLOW_FIRST.findIndex((path) => test.path.endsWith(path));
      return slow === -1 || test.duration != null ? SLOW_FIRST.length : slow;
    };
    // Array sort is stable: every other file keeps jest's order.
    return [...ordered].sort((a, b) => rank(a) - rank(b));
  }
}

module.exports = SlowFirstSequencer;

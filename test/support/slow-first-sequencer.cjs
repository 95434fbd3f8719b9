// Jest's own order, but for one thing. A file jest has no timing of (every file, in a fresh clone,
// which is how CI runs) goes by its size, and a few small files are among the suite's slowest: run
// last, one of them could finish alone, its worker's partner idle (bundles.test.ts, 30 s on its own
// at the end of a fresh run). Such a file says so in its docblock (`@slow`, with why) and starts
// first while jest has no timing of it; once it has, jest's longest-first order takes over.
const Sequencer = require('@jest/test-sequencer').default;
const { readFileSync } = require('node:fs');
const { extract, parse } = require('jest-docblock');

const declaredSlow = (path) => 'slow' in parse(extract(readFileSync(path, 'utf8')));

class SlowFirstSequencer extends Sequencer {
  sort(tests) {
    const sorted = super.sort(tests);
    const first = sorted.filter((test) => test.duration == null && declaredSlow(test.path));
    return [...first, ...sorted.filter((test) => !first.includes(test))];
  }
}

module.exports = SlowFirstSequencer;

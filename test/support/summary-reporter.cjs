// Prints the plain closing line ("N passed, N failed") after jest's own summary (on stderr, where jest writes it), so any CI can
// tell a run that executed tests from one that ran none.
class SummaryReporter {
  onRunComplete(_contexts, results) {
    process.stderr.write(`\n${results.numPassedTests} passed, ${results.numFailedTests} failed, ${results.numPendingTests} skipped\n`);
  }
}
module.exports = SummaryReporter;

// DynamoDB Local and the SQS emulator share the machine's two cores with every other test file: a
// timeout in these layers means a hang, not slowness (speed is measured by `npm run bench`, never
// by a test), so a test's own 5 s default would fail a loaded machine, not the code.
jest.setTimeout(30_000);

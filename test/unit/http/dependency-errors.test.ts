import { isDependencyUnavailable, wroteNothing } from '../../../lambdas/shared/dependency-errors';

describe('which failures mean a dependency is unavailable (503, retry)', () => {
  it('takes an SDK error that got no answer at all, however the SDK wrapped the socket error', () => {
    const wrapped = Object.assign(new Error('AWS SDK error wrapper for Error: connect ECONNREFUSED 127.0.0.1:8000'), { $metadata: { attempts: 3 } });
    expect(isDependencyUnavailable(wrapped)).toBe(true);
    expect(isDependencyUnavailable(Object.assign(new Error('reset'), { code: 'ECONNRESET' }))).toBe(true);
  });

  it('takes throttling and the service’s own 5xx answers', () => {
    const throttled = Object.assign(new Error('slow down'), { name: 'ProvisionedThroughputExceededException', $metadata: { httpStatusCode: 400 } });
    expect(isDependencyUnavailable(throttled)).toBe(true);
    expect(isDependencyUnavailable(Object.assign(new Error('oops'), { name: 'InternalServerError', $metadata: { httpStatusCode: 500 } }))).toBe(true);
  });

  it('takes a transaction cancelled because the table throttled it, on demand or provisioned: it wrote and decided nothing', () => {
    const cancelled = (...codes: string[]) =>
      Object.assign(new Error('Transaction cancelled'), { name: 'TransactionCanceledException', $metadata: { httpStatusCode: 400 }, CancellationReasons: codes.map((Code) => ({ Code })) });
    expect(isDependencyUnavailable(cancelled('None', 'ThrottlingError'))).toBe(true);
    expect(isDependencyUnavailable(cancelled('ProvisionedThroughputExceeded', 'None'))).toBe(true);
    // A condition's refusal and another transaction in flight are answers: their callers decide on them.
    expect(isDependencyUnavailable(cancelled('ConditionalCheckFailed', 'None'))).toBe(false);
    expect(isDependencyUnavailable(cancelled('None', 'TransactionConflict'))).toBe(false);
  });

  it('leaves answers about the request itself, and our own bugs, alone', () => {
    expect(isDependencyUnavailable(Object.assign(new Error('bad'), { name: 'ValidationException', $metadata: { httpStatusCode: 400 } }))).toBe(false);
    expect(isDependencyUnavailable(Object.assign(new Error('no'), { name: 'ConditionalCheckFailedException', $metadata: { httpStatusCode: 400 } }))).toBe(false);
    expect(isDependencyUnavailable(new TypeError('x is undefined'))).toBe(false);
    expect(isDependencyUnavailable('ECONNREFUSED')).toBe(false);
  });
});

describe('which unanswered writes certainly wrote nothing (decision 218)', () => {
  it('takes a throttle answered to the one request the SDK made', () => {
    expect(wroteNothing(Object.assign(new Error('slow down'), { name: 'ThrottlingException', $metadata: { httpStatusCode: 400, attempts: 1 } }))).toBe(true);
  });

  it('leaves no answer, a 5xx, and an answer after the SDK’s own retries perhaps applied: an earlier request’s answer may have been lost', () => {
    expect(wroteNothing(Object.assign(new Error('Request timed out'), { name: 'TimeoutError', $metadata: {} }))).toBe(false);
    expect(wroteNothing(Object.assign(new Error('oops'), { name: 'InternalServerError', $metadata: { httpStatusCode: 500, attempts: 1 } }))).toBe(false);
    expect(wroteNothing(Object.assign(new Error('slow down'), { name: 'ThrottlingException', $metadata: { httpStatusCode: 400, attempts: 3 } }))).toBe(false);
    expect(wroteNothing(Object.assign(new Error('reset'), { code: 'ECONNRESET' }))).toBe(false);
  });
});

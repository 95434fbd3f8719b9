import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { GetCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { applyToTemplate, saveTemplateOverRead, storedTemplateItem } from '../../../lambdas/domain/templates/template-repository';
import { withinConflictDeadline } from '../../../lambdas/shared/conflict-deadline';
import type { Store } from '../../../lambdas/shared/store';
import { CONFLICT_WAIT_MS, untilNotOutrun } from '../../../lambdas/shared/writes';
import { template } from '../../support/send-fixtures';

/**
 * Each wait for conflicts took its own 8 s, so waits one inside another, or one after another in
 * one request, ran past a 10 s function: Lambda's timeout (a 504 or 502) instead of the 503 meant.
 * With the pauses pinned (they are random) and the clock faked, the time each takes is exact.
 */
const conflict = () => new TransactionCanceledException({ message: 'cancelled', $metadata: {}, CancellationReasons: [{ Code: 'TransactionConflict' }] });
const moved = () => new TransactionCanceledException({ message: 'cancelled', $metadata: {}, CancellationReasons: [{ Code: 'ConditionalCheckFailed' }] });

beforeEach(() => {
  jest.useFakeTimers();
  jest.spyOn(Math, 'random').mockReturnValue(0.5);
});
afterEach(() => {
  jest.useRealTimers();
  jest.restoreAllMocks();
});

/** How `work` ended, and after how long on the faked clock. */
async function timed(work: Promise<unknown>): Promise<{ answered: unknown; after: number }> {
  const start = Date.now();
  const outcome = work.then(
    () => ({ answered: 'done', after: Date.now() - start }),
    (error: { status?: number }) => ({ answered: error.status, after: Date.now() - start }),
  );
  await jest.runAllTimersAsync();
  return outcome;
}

it('a template save whose transaction waits inside the save’s own wait gives up (503) within one wait’s 8 s', async () => {
  const WS = 'ws-deadline';
  const start = Date.now();
  let movedOnce = false;
  const send = (command: unknown) => {
    if (command instanceof GetCommand) return Promise.resolve({ Item: storedTemplateItem(WS, template) });
    if (command instanceof TransactWriteCommand) {
      // Other webhooks of the template hold it for 7.5 s; then one of them saves it (the save's read is outrun) and others hold it again.
      if (Date.now() - start < 7_500) return Promise.reject(conflict());
      if (!movedOnce) return (movedOnce = true), Promise.reject(moved());
      return Promise.reject(conflict());
    }
    return Promise.reject(new Error('unexpected command'));
  };
  const store = { tableName: 't', db: { send } } as unknown as Store;
  const { answered, after } = await timed(applyToTemplate(WS, template.id, store, async (read) => ((await saveTemplateOverRead(WS, read!, read, store)) ? true : undefined)));
  expect(answered).toBe(503);
  expect(after).toBeLessThan(CONFLICT_WAIT_MS + 1_000);
});

it('waits one after another in a request give up by the request’s deadline, not each after 8 s', async () => {
  const outrun = () => untilNotOutrun(() => Promise.resolve(undefined));
  const { answered, after } = await timed(withinConflictDeadline(Date.now() + 9_000, async () => {
    await outrun().catch(() => undefined);
    await outrun();
  }));
  expect(answered).toBe(503);
  expect(after).toBeLessThan(9_000 + 1_000);
});

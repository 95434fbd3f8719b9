import { TransactionCanceledException, TransactionConflictException } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { BuildMiddleware } from '@smithy/types';

type KeyedItem = { TableName?: string; Key?: Record<string, unknown>; Item?: Record<string, unknown> };
type TransactItem = { Put?: KeyedItem; Update?: KeyedItem; Delete?: KeyedItem; ConditionCheck?: KeyedItem };

/** Attribute values as the wire carries them (`{ S: '…' }`): the middleware runs after the document client marshalled. */
const text = (value: unknown) => String((value as { S?: string } | undefined)?.S);
const itemKey = ({ TableName, Key, Item }: KeyedItem) => `${TableName}|${text((Key ?? Item)?.pk)}|${text((Key ?? Item)?.sk)}`;

/**
 * DynamoDB Local runs transactions one at a time, so two never conflict there. DynamoDB does not:
 * a TransactWriteItems touching an item another transaction is writing is cancelled with reason
 * `TransactionConflict` for that item, and a PutItem, UpdateItem or DeleteItem on it fails with
 * TransactionConflictException (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/transaction-apis.html,
 * "Transaction conflict handling"); the SDK retries neither. This puts that rule in front of a
 * client talking to DynamoDB Local: while a transaction is in flight its items are held, and any
 * write that touches one is refused as DynamoDB would refuse it.
 *
 * An item is held for the transaction's round trip, but at most HOLD_MS: DynamoDB holds it for its
 * own commit, tens of milliseconds, while a round trip to DynamoDB Local on a loaded machine can
 * take a second. Held for all of that, a burst's contention grew with the machine's load until it
 * outlasted the retries' 8 s (a CI run failed so); held for what DynamoDB would hold it, the
 * conflicts are DynamoDB's, on any machine.
 */
const HOLD_MS = 50;

export function emulateTransactionConflicts(client: DynamoDBDocumentClient, options: { heldForever?: (pk: string) => boolean } = {}) {
  // Each held item, with the hold that holds it: a hold released by its timer is not released
  // again by its transaction's end, when another transaction may have taken the item since.
  const inFlight = new Map<string, symbol>();
  // An item a transaction that never ends is writing: every write to it is refused.
  const held = { has: (key: string) => inFlight.has(key) || (options.heldForever?.(key.split('|')[1]!) ?? false) };
  const release = (hold: symbol, keys: string[]) => keys.forEach((key) => inFlight.get(key) === hold && inFlight.delete(key));
  const stats = { cancelled: 0, refusedWrites: 0 };
  const middleware: BuildMiddleware<object, object> = (next, context) => async (args) => {
    const input = args.input as { TransactItems?: TransactItem[] } & KeyedItem;
    if (context.commandName === 'TransactWriteItemsCommand') {
      const keys = (input.TransactItems ?? []).map((item) => itemKey((item.Put ?? item.Update ?? item.Delete ?? item.ConditionCheck)!));
      if (keys.some((key) => held.has(key))) {
        stats.cancelled++;
        const codes = keys.map((key) => (held.has(key) ? 'TransactionConflict' : 'None'));
        throw new TransactionCanceledException({
          message: `Transaction cancelled, please refer cancellation reasons for specific reasons [${codes.join(', ')}]`,
          $metadata: { httpStatusCode: 400 },
          CancellationReasons: codes.map((Code) => ({ Code, ...(Code === 'TransactionConflict' ? { Message: 'Transaction is ongoing for the item' } : {}) })),
        });
      }
      const hold = Symbol('transaction');
      keys.forEach((key) => inFlight.set(key, hold));
      const timer = setTimeout(() => release(hold, keys), HOLD_MS);
      try {
        return await next(args);
      } finally {
        clearTimeout(timer);
        release(hold, keys);
      }
    }
    if (['PutItemCommand', 'UpdateItemCommand', 'DeleteItemCommand'].includes(context.commandName ?? '') && held.has(itemKey(input))) {
      stats.refusedWrites++;
      throw new TransactionConflictException({ message: 'Transaction is ongoing for the item', $metadata: { httpStatusCode: 400 } });
    }
    return next(args);
  };
  client.middlewareStack.add(middleware as never, { step: 'build', name: 'emulated-transaction-conflicts' });
  return {
    stats,
    remove: () => client.middlewareStack.remove('emulated-transaction-conflicts'),
  };
}

/**
 * DynamoDB Local never throttles, and rarely cancels a transaction for anything but a condition.
 * DynamoDB cancels one it cannot take for now with reason `ThrottlingError` (on demand, beyond twice
 * a table's previous peak or a partition's limit) or `ProvisionedThroughputExceeded` (beyond the
 * capacity auto scaling has reached), and one it cannot take at all with `ValidationError` (an item
 * grown past 400 KB, say), on the items concerned, and writes nothing
 * (https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_TransactWriteItems.html,
 * TransactionCanceledException). This cancels the transactions touching an item `on` names, so,
 * `times` times, before they reach DynamoDB Local.
 */
export function emulateCancelledTransactions(
  client: DynamoDBDocumentClient,
  options: { on: (pk: string) => boolean; code: 'ThrottlingError' | 'ProvisionedThroughputExceeded' | 'ValidationError'; times?: number },
) {
  const stats = { cancelled: 0 };
  const middleware: BuildMiddleware<object, object> = (next, context) => async (args) => {
    const input = args.input as { TransactItems?: TransactItem[] };
    if (context.commandName !== 'TransactWriteItemsCommand' || stats.cancelled >= (options.times ?? Infinity)) return next(args);
    const pks = (input.TransactItems ?? []).map((item) => itemKey((item.Put ?? item.Update ?? item.Delete ?? item.ConditionCheck)!).split('|')[1]!);
    if (!pks.some(options.on)) return next(args);
    stats.cancelled++;
    const codes = pks.map((pk) => (options.on(pk) ? options.code : 'None'));
    throw new TransactionCanceledException({
      message: `Transaction cancelled, please refer cancellation reasons for specific reasons [${codes.join(', ')}]`,
      $metadata: { httpStatusCode: 400 },
      CancellationReasons: codes.map((Code) => ({ Code, ...(Code === 'None' ? {} : { Message: Code === 'ValidationError' ? 'Item size has exceeded the maximum allowed size' : 'Throughput exceeds the current capacity of your table or index.' }) })),
    });
  };
  client.middlewareStack.add(middleware as never, { step: 'build', name: 'emulated-cancelled-transactions' });
  return {
    stats,
    remove: () => client.middlewareStack.remove('emulated-cancelled-transactions'),
  };
}

/**
 * The same for a single write: DynamoDB refuses a PutItem, UpdateItem or DeleteItem it cannot take
 * for now with ProvisionedThroughputExceededException or ThrottlingException (after the SDK's own
 * retries), and one it cannot take at all with ValidationException (an item grown past 400 KB), and
 * writes nothing (https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_UpdateItem.html,
 * Errors). This refuses the single writes to an item `on` names, so, while `refusing()` says to,
 * before they reach DynamoDB Local (and before the SDK's retries, as if each had been refused).
 */
export function emulateRefusedWrites(
  client: DynamoDBDocumentClient,
  options: { on: (pk: string) => boolean; name: 'ThrottlingException' | 'ProvisionedThroughputExceededException' | 'ValidationException'; refusing: () => boolean },
) {
  const stats = { refused: 0 };
  const middleware: BuildMiddleware<object, object> = (next, context) => async (args) => {
    const input = args.input as KeyedItem;
    if (!['PutItemCommand', 'UpdateItemCommand', 'DeleteItemCommand'].includes(context.commandName ?? '') || !options.refusing() || !options.on(itemKey(input).split('|')[1]!)) return next(args);
    stats.refused++;
    const message = options.name === 'ValidationException' ? 'Item size has exceeded the maximum allowed size' : 'Throughput exceeds the current capacity of your table or index.';
    throw Object.assign(new Error(message), { name: options.name, $metadata: { httpStatusCode: 400 } });
  };
  client.middlewareStack.add(middleware as never, { step: 'build', name: 'emulated-refused-writes' });
  return {
    stats,
    remove: () => client.middlewareStack.remove('emulated-refused-writes'),
  };
}

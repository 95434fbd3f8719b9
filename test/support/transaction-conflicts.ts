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
 */
export function emulateTransactionConflicts(client: DynamoDBDocumentClient, options: { heldForever?: (pk: string) => boolean } = {}) {
  const inFlight = new Set<string>();
  // An item a transaction that never ends is writing: every write to it is refused.
  const held = { has: (key: string) => inFlight.has(key) || (options.heldForever?.(key.split('|')[1]!) ?? false) };
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
      keys.forEach((key) => inFlight.add(key));
      try {
        return await next(args);
      } finally {
        keys.forEach((key) => inFlight.delete(key));
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

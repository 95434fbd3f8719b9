import { dynamo } from './clients';
import { required } from './config';
import type { Store } from './store';

let fromConfig: Store | undefined;

/** The function's own table, from TABLE_NAME; resolved on first use, then reused. */
export function defaultStore(): Store {
  fromConfig ??= { db: dynamo, tableName: required('TABLE_NAME') };
  return fromConfig;
}

import type * as z from './zod';
import { issueLine } from './zod-issues';

/** A stored item that does not have the shape its module writes: a data fault, never a client error. */
export class MalformedItemError extends Error {
  override name = 'MalformedItemError';
}

/**
 * Reads a stored item into a typed value with its module's schema; an item that does not fit is
 * refused, naming the entity, its key and what is wrong, rather than cast into a lie.
 */
export function parseItem<S extends z.ZodMiniType>(schema: S, item: Record<string, unknown>, entity: string): z.output<S> {
  const parsed = schema.safeParse(item);
  if (parsed.success) return parsed.data;
  const where = typeof item.pk === 'string' ? ` ${withoutCustomerNumbers(`${item.pk}/${String(item.sk)}`)}` : '';
  throw new MalformedItemError(`Stored ${entity}${where} is malformed: ${issueLine(parsed.error, '(item)')}`);
}

/**
 * Some keys hold a customer's number (E.164, with its `+`: opt-outs, delivery events, dedupe
 * markers), and this error reaches the ERROR log: the last four digits still tell an operator
 * which item, without the number (docs/security.md).
 */
const withoutCustomerNumbers = (key: string): string => key.replace(/\+\d+(\d{4})/g, '+…$1');

import * as z from '../../shared/zod';

/** The contract's pagination object (docs/api.md#pagination): all four required. */
export const paginationSchema = z.object({
  page: z.int().check(z.gte(1)),
  limit: z.int().check(z.gte(1), z.lte(100_000)),
  totalItems: z.int().check(z.gte(0)),
  totalPages: z.int().check(z.gte(0)),
});

export type Pagination = z.output<typeof paginationSchema>;

export const paginationOf = (page: number, limit: number, totalItems: number): Pagination => ({ page, limit, totalItems, totalPages: Math.ceil(totalItems / limit) });

/** Page `page` (from 1) of an in-memory list. */
export function pageOf<T>(items: readonly T[], page: number, limit: number): { items: T[]; pagination: Pagination } {
  return { items: items.slice((page - 1) * limit, page * limit), pagination: paginationOf(page, limit, items.length) };
}

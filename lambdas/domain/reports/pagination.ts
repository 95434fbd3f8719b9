/** The contract's pagination object (public-api.md §2.6). */
export interface Pagination {
  page: number;
  limit: number;
  totalItems: number;
  totalPages: number;
}

export const paginationOf = (page: number, limit: number, totalItems: number): Pagination => ({ page, limit, totalItems, totalPages: Math.ceil(totalItems / limit) });

/** Page `page` (from 1) of an in-memory list. */
export function pageOf<T>(items: readonly T[], page: number, limit: number): { items: T[]; pagination: Pagination } {
  return { items: items.slice((page - 1) * limit, page * limit), pagination: paginationOf(page, limit, items.length) };
}

/** API key scopes (public-api.md §5.3). */
export const scopes = ['messages:send', 'messages:read', 'templates:read'] as const;
export type Scope = (typeof scopes)[number];

import type { RouteDefinition } from '../../lambdas/routes';

export interface RouteMatch<T> {
  route: T;
  pathParameters: Record<string, string> | null;
}

interface Compiled<T> {
  route: T;
  method: string;
  pattern: RegExp;
  names: string[];
  /** Per segment, 0 for a literal and 1 for a `{param}`: the order API Gateway tries resources in. */
  rank: number[];
}

/** Literal before `{param}`, segment by segment from the left. */
const byRank = (a: number[], b: number[]) => {
  for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return a.length - b.length;
};

/**
 * Matches requests the way API Gateway does: the resource first, a literal segment winning over a
 * `{param}` (`/v1/messages/tracking-tags` before `/v1/messages/{dispatchId}`), then its method. A
 * resource without the request's method is not found, even where a `{param}` resource beside it
 * has that method.
 */
export function createRouter<T extends Pick<RouteDefinition, 'method' | 'path'>>(routes: readonly T[]) {
  const compiled: Compiled<T>[] = routes
    .map((route) => {
      const names: string[] = [];
      const segments = route.path.split('/').filter(Boolean);
      const pattern = segments
        .map((segment) => {
          const param = /^\{(\w+)\}$/.exec(segment);
          if (!param) return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
          names.push(param[1]!);
          return '([^/]+)';
        })
        .join('/');
      const rank = segments.map((segment) => (/^\{\w+\}$/.test(segment) ? 1 : 0));
      return { route, method: route.method, pattern: new RegExp(`^/${pattern}/?$`), names, rank };
    })
    .sort((a, b) => byRank(a.rank, b.rank));

  return (method: string, path: string): RouteMatch<T> | undefined => {
    for (const resource of compiled) {
      const match = resource.pattern.exec(path);
      if (!match) continue;
      const candidate = compiled.find((other) => other.route.path === resource.route.path && other.method === method);
      if (!candidate) return undefined;
      const pathParameters = candidate.names.length
        ? Object.fromEntries(candidate.names.map((name, i) => [name, decodeURIComponent(match[i + 1]!)]))
        : null;
      return { route: candidate.route, pathParameters };
    }
    return undefined;
  };
}

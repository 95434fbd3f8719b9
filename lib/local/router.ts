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
  literals: number;
}

/**
 * Matches requests the way API Gateway does: a literal segment wins over a `{param}`
 * (`/v1/messages/tracking-tags` before `/v1/messages/{dispatchId}`).
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
      return { route, method: route.method, pattern: new RegExp(`^/${pattern}/?$`), names, literals: segments.length - names.length };
    })
    .sort((a, b) => b.literals - a.literals);

  return (method: string, path: string): RouteMatch<T> | undefined => {
    for (const candidate of compiled) {
      if (candidate.method !== method) continue;
      const match = candidate.pattern.exec(path);
      if (!match) continue;
      const pathParameters = candidate.names.length
        ? Object.fromEntries(candidate.names.map((name, i) => [name, decodeURIComponent(match[i + 1]!)]))
        : null;
      return { route: candidate.route, pathParameters };
    }
    return undefined;
  };
}

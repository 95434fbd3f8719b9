import { UnauthorizedError } from '../shared/errors';
import { headerLinesSent, type SentHeaderLines } from './header-lines';

type Headers = Record<string, string | undefined> | null;

/**
 * The request's `X-API-Key` value, whatever the case of its name. A request that repeats the
 * header is refused: API Gateway hands the function the last value, and its usage-plan authorizer
 * may count the request against the first key's plan, so one request would have two identities.
 * Two names that differ only in case are two headers too: on a route they are counted as sent
 * (`rawMultiValueHeaders`, kept by http-stack.ts before Middy's normaliser folds them into one).
 */
export function apiKeyHeader(event: SentHeaderLines & { headers: Headers }): string | undefined {
  const sent = headerLinesSent(event, 'x-api-key');
  if (sent.length > 1) throw new UnauthorizedError(`Send one X-API-Key header, not ${sent.length}`);
  return Object.entries(event.headers ?? {}).find(([name]) => name.toLowerCase() === 'x-api-key')?.[1];
}

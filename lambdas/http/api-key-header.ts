import { UnauthorizedError } from '../shared/errors';

type Headers = Record<string, string | undefined> | null;
type MultiValueHeaders = Record<string, string[] | undefined> | null;

/**
 * The request's `X-API-Key` value, whatever the case of its name. A request that repeats the
 * header is refused: API Gateway hands the function the last value, and its usage-plan authorizer
 * may count the request against the first key's plan, so one request would have two identities.
 */
export function apiKeyHeader(event: { headers: Headers; multiValueHeaders?: MultiValueHeaders }): string | undefined {
  const sent = Object.entries(event.multiValueHeaders ?? {})
    .filter(([name]) => name.toLowerCase() === 'x-api-key')
    .flatMap(([, values]) => values ?? []);
  if (sent.length > 1) throw new UnauthorizedError(`Send one X-API-Key header, not ${sent.length}`);
  return Object.entries(event.headers ?? {}).find(([name]) => name.toLowerCase() === 'x-api-key')?.[1];
}

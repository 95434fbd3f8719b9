import { request as httpRequest, type RequestOptions } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction, TcpNetConnectOpts } from 'node:net';

/** Where a POST goes: the URL as registered, and the addresses its check approved, in the resolver's order. */
export interface PinnedTarget {
  url: URL;
  addresses: readonly { address: string; family: 4 | 6 }[];
}

/** What a receiver answered: its status code, or why there was none (timeout, refused, reset). */
export type PostOutcome = { statusCode: number; error: null } | { statusCode: null; error: string };

/**
 * POSTs `body` to `target.url`, connecting only to `target.addresses`: the name is never resolved
 * again, so a DNS answer cannot change between the URL check and the connection, while TLS (SNI
 * and certificate) and the Host header still use the URL's host name. Node's connect tries each
 * address in turn (happy eyeballs, families alternating) until one accepts, so one dead host or an
 * unreachable IPv6 address does not fail the attempt. No redirect is followed and no connection is
 * reused. Only the answer's status is read; no answer within `timeoutMs` is a timeout.
 */
export function pinnedPost(target: PinnedTarget, headers: Record<string, string>, body: string, timeoutMs: number): Promise<PostOutcome> {
  const [first] = target.addresses;
  if (!first) return Promise.resolve({ statusCode: null, error: 'no address' });
  const lookup: LookupFunction = (_hostname, options, callback) => {
    if (options.all) callback(null, [...target.addresses]);
    else callback(null, first.address, first.family);
  };
  const secure = target.url.protocol === 'https:';
  const options: RequestOptions & Pick<TcpNetConnectOpts, 'autoSelectFamilyAttemptTimeout'> = {
    method: 'POST',
    hostname: target.url.hostname.replace(/^\[|\]$/g, ''),
    port: target.url.port || (secure ? 443 : 80),
    path: `${target.url.pathname}${target.url.search}`,
    headers: { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)), 'user-agent': 'messaging-api-webhooks/1', ...headers },
    lookup,
    // Node gives each address but the last 250 ms by default, less than a far receiver or a lost
    // SYN takes: each gets its share of the attempt's time instead.
    autoSelectFamilyAttemptTimeout: Math.max(250, Math.floor(timeoutMs / target.addresses.length)),
    agent: false,
    signal: AbortSignal.timeout(timeoutMs),
  };
  return new Promise((resolve) => {
    const request = (secure ? httpsRequest : httpRequest)(options, (response) => {
      // The status is the answer: the body is not read, and the connection is closed.
      resolve({ statusCode: response.statusCode ?? 0, error: null });
      response.on('error', () => undefined);
      response.destroy();
    });
    // A 101 goes to 'upgrade', never to the callback above, once the request is over and the
    // abort signal no longer fires: the attempt would wait for ever, and its batch with it.
    request.on('upgrade', (response, socket) => {
      resolve({ statusCode: response.statusCode ?? 101, error: null });
      socket.destroy();
    });
    request.on('error', (error: Error & { code?: string }) => {
      resolve({ statusCode: null, error: error.name === 'AbortError' || error.name === 'TimeoutError' ? 'timeout' : (error.code ?? error.message) });
    });
    // Whatever else ends the exchange without an answer, the attempt ends with it.
    request.on('close', () => resolve({ statusCode: null, error: 'closed without an answer' }));
    request.end(body);
  });
}

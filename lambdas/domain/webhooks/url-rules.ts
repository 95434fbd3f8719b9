import { lookup, Resolver as DnsClient } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import { config } from '../../shared/config';
import { answeredBy } from '../../shared/answered-by';

/** Answers every address a host name resolves to. Replaceable, so tests need no DNS. */
export type Resolver = (hostname: string) => Promise<{ address: string; family: 4 | 6 }[]>;

/** How long one DNS query waits for its server before asking again. */
const DNS_TRY_MS = 1_000;

/**
 * A name's addresses, asked of the DNS servers (`servers`, or the system's) directly, never through
 * getaddrinfo: a getaddrinfo call holds one of libuv's four threads until the system's resolver
 * gives up, seconds per try, so an endpoint whose name servers never answer, posted to in
 * parallel, held them all, and every other workspace's lookup waited behind it and timed out.
 * `localhost` is the hosts file's, which only the system's lookup reads.
 */
export function dnsResolver(servers?: string[], { tryMs = DNS_TRY_MS } = {}): Resolver {
  let client: DnsClient | undefined;
  return async (hostname) => {
    if (hostname === 'localhost') return (await lookup(hostname, { all: true, verbatim: true })).map(({ address, family }) => ({ address, family: family === 6 ? 6 : 4 }));
    if (!client) {
      client = new DnsClient({ timeout: tryMs, tries: 2 });
      if (servers) client.setServers(servers);
    }
    const [v4, v6] = await bothFamilies(client.resolve4(hostname), client.resolve6(hostname));
    const answers = [
      ...(v4.status === 'fulfilled' ? v4.value.map((address) => ({ address, family: 4 as const })) : []),
      ...(v6.status === 'fulfilled' ? v6.value.map((address) => ({ address, family: 6 as const })) : []),
    ];
    if (answers.length) return answers;
    // No address: the A query's error says why (ENOTFOUND, ETIMEOUT), unless it found the name without one.
    throw v4.status === 'rejected' ? v4.reason : Object.assign(new Error(`${hostname} has no address`), { code: 'ENODATA' });
  };
}

/** How long the other family's query is waited for once one has answered with addresses. */
const OTHER_FAMILY_GRACE_MS = 300;

/**
 * Both queries' outcomes, as `Promise.allSettled`, but once one has answered with addresses the
 * other has OTHER_FAMILY_GRACE_MS more: servers (and middleboxes) that drop AAAA queries still
 * exist, and waiting out their retries threw away the A answer in hand. One still unanswered then
 * counts as no address of its family.
 */
async function bothFamilies(v4: Promise<string[]>, v6: Promise<string[]>): Promise<[PromiseSettledResult<string[]>, PromiseSettledResult<string[]>]> {
  const outcomes: [PromiseSettledResult<string[]>, PromiseSettledResult<string[]>] = [
    { status: 'fulfilled', value: [] },
    { status: 'fulfilled', value: [] },
  ];
  let oneAnswered: () => void = () => undefined;
  const answered = new Promise<void>((resolve) => (oneAnswered = resolve));
  const settled = Promise.all(
    [v4, v6].map((query, i) =>
      query.then(
        (value) => {
          outcomes[i] = { status: 'fulfilled', value };
          if (value.length) oneAnswered();
        },
        (reason: unknown) => void (outcomes[i] = { status: 'rejected', reason }),
      ),
    ),
  );
  let grace: ReturnType<typeof setTimeout> | undefined;
  try {
    await Promise.race([settled, answered.then(() => Promise.race([settled, new Promise((resolve) => (grace = setTimeout(resolve, OTHER_FAMILY_GRACE_MS)))]))]);
  } finally {
    clearTimeout(grace);
  }
  return [outcomes[0], outcomes[1]];
}

/** The resolver deployed functions use: the system's DNS servers, asked directly. */
export const systemResolver: Resolver = dnsResolver();

/** A resolver that answers the names in `hosts` itself and asks `fallback` about every other. */
export function withHosts(hosts: Readonly<Record<string, string>>, fallback: Resolver): Resolver {
  return async (hostname) => {
    const address = hosts[hostname.toLowerCase()];
    if (address === undefined) return fallback(hostname);
    return [{ address, family: isIP(address) === 6 ? 6 : 4 }];
  };
}

/**
 * The rules as this process applies them, from its configuration: what the routes check on a
 * create or change and what a delivery checks again before it connects.
 */
export function configuredUrlRules(): { resolve: Resolver; allowLocal: boolean } {
  return { resolve: config.WEBHOOK_HOSTS ? withHosts(config.WEBHOOK_HOSTS, systemResolver) : systemResolver, allowLocal: config.WEBHOOK_ALLOW_LOCAL_URLS === 'true' };
}

/** `timedOut`: the name's DNS did not answer in time, which a delivery counts as a timeout, not a refused URL. */
export type UrlVerdict = { ok: true; url: URL; addresses: { address: string; family: 4 | 6 }[] } | { ok: false; reason: string; timedOut?: true };

export const WEBHOOK_URL_MAX_LENGTH = 2048;

/**
 * How long a name's lookup may take: a route answers 422 well inside its function's 10 s, where a
 * resolver retrying a silent name server would hold it to a 504. A delivery's own 5 s bounds it too.
 */
const DNS_ANSWER_MS = 3_000;

/** Host names the local runtime may post to over http; both must lead to this machine. */
const LOCAL_HOSTS: readonly string[] = ['127.0.0.1', 'localhost'];

/**
 * Address ranges no webhook may reach, by what they are (IANA's special-purpose registries). The
 * first match names the refusal, so the metadata addresses come before the ranges holding them.
 */
const refusedRanges: readonly { what: string; ranges: readonly [string, number, 'ipv4' | 'ipv6'][] }[] = [
  { what: 'a cloud metadata address', ranges: [['169.254.169.254', 32, 'ipv4'], ['fd00:ec2::254', 128, 'ipv6'], ['169.254.170.2', 32, 'ipv4']] },
  { what: 'an unspecified address', ranges: [['0.0.0.0', 8, 'ipv4'], ['::', 128, 'ipv6']] },
  { what: 'a loopback address', ranges: [['127.0.0.0', 8, 'ipv4'], ['::1', 128, 'ipv6']] },
  { what: 'a private address', ranges: [['10.0.0.0', 8, 'ipv4'], ['172.16.0.0', 12, 'ipv4'], ['192.168.0.0', 16, 'ipv4']] },
  { what: 'a carrier-grade NAT address', ranges: [['100.64.0.0', 10, 'ipv4']] },
  { what: 'a link-local address', ranges: [['169.254.0.0', 16, 'ipv4'], ['fe80::', 10, 'ipv6']] },
  { what: 'a unique local address', ranges: [['fc00::', 7, 'ipv6']] },
  { what: 'a multicast address', ranges: [['224.0.0.0', 4, 'ipv4'], ['ff00::', 8, 'ipv6']] },
  {
    what: 'a reserved address',
    ranges: [
      ['192.0.0.0', 24, 'ipv4'], // IETF protocol assignments
      ['192.0.2.0', 24, 'ipv4'], // documentation
      ['192.88.99.0', 24, 'ipv4'], // 6to4 relay anycast
      ['198.18.0.0', 15, 'ipv4'], // benchmarking
      ['198.51.100.0', 24, 'ipv4'], // documentation
      ['203.0.113.0', 24, 'ipv4'], // documentation
      ['240.0.0.0', 4, 'ipv4'], // reserved, and the broadcast address
      ['2001:db8::', 32, 'ipv6'], // documentation
      ['3fff::', 20, 'ipv6'], // documentation
      ['100::', 64, 'ipv6'], // discard-only
      ['2001::', 23, 'ipv6'], // IETF protocol assignments (Teredo among them)
    ],
  },
].map(({ what, ranges }) => ({ what, ranges: ranges as [string, number, 'ipv4' | 'ipv6'][] }));

const refusedLists = refusedRanges.map(({ what, ranges }) => {
  const list = new BlockList();
  for (const [network, prefix, type] of ranges) list.addSubnet(network, prefix, type);
  return { what, list };
});

/** The 16-bit groups of an IPv6 address (which `isIP` has accepted), a dotted IPv4 tail included. */
function ipv6Groups(address: string): number[] {
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(address);
  const text = dotted ? address.slice(0, dotted.index) + [0, 1].map((i) => ((Number(dotted[2 * i + 1]) << 8) | Number(dotted[2 * i + 2])).toString(16)).join(':') : address;
  const [head = '', tail] = text.split('::');
  const parse = (part: string) => (part === '' ? [] : part.split(':').map((group) => parseInt(group, 16)));
  const [before, after] = [parse(head), parse(tail ?? '')];
  return tail === undefined ? before : [...before, ...Array<number>(8 - before.length - after.length).fill(0), ...after];
}

const ipv4Of = (high: number, low: number) => [high >> 8, high & 0xff, low >> 8, low & 0xff].join('.');

/**
 * The IPv4 address an IPv6 address carries and would be routed to: IPv4-mapped (`::ffff:a.b.c.d`),
 * NAT64 (`64:ff9b::/96`) and 6to4 (`2002::/16`). Checking only the IPv6 form would let
 * `::ffff:127.0.0.1` through.
 */
function embeddedIpv4(address: string): string | undefined {
  const g = ipv6Groups(address);
  if (g.slice(0, 5).every((x) => x === 0) && g[5] === 0xffff) return ipv4Of(g[6]!, g[7]!);
  if (g[0] === 0x64 && g[1] === 0xff9b && g.slice(2, 6).every((x) => x === 0)) return ipv4Of(g[6]!, g[7]!);
  if (g[0] === 0x2002) return ipv4Of(g[1]!, g[2]!);
  return undefined;
}

/** Why a webhook may not reach `address`, or undefined when it may (a public unicast address). */
export function refusedAddress(address: string): string | undefined {
  const family = isIP(address);
  if (family === 0) return 'not an IP address';
  const embedded = family === 6 ? embeddedIpv4(address) : undefined;
  if (embedded !== undefined) {
    const why = refusedAddress(embedded);
    return why && `${why} (${embedded}, inside an IPv6 address)`;
  }
  const type = family === 4 ? 'ipv4' : 'ipv6';
  const match = refusedLists.find(({ list }) => list.check(address, type));
  if (match) return match.what;
  // Only global unicast (2000::/3) is routable on the internet; the rest of IPv6 is special.
  if (family === 6 && (ipv6Groups(address)[0]! & 0xe000) !== 0x2000) return 'a reserved address';
  return undefined;
}

/** A host as the URL holds it, without IPv6 brackets or a trailing root dot. */
const bareHost = (url: URL) => url.hostname.replace(/^\[(.*)\]$/, '$1').replace(/\.$/, '').toLowerCase();

/**
 * Whether events may be posted to `url`, and the addresses to connect to. Deployed: `https` only,
 * to a host whose every address is public (a name with one private answer is refused, since the
 * connection could go to any of them). `allowLocal` (the local runtime) also accepts
 * `http://127.0.0.1` and `http://localhost` (which must resolve to loopback), and nothing else
 * private. The caller connects to one of `addresses`, never resolving the name again.
 */
export async function checkWebhookUrl(url: string, options: { resolve?: Resolver; allowLocal: boolean; resolveTimeoutMs?: number }): Promise<UrlVerdict> {
  const refuse = (reason: string): UrlVerdict => ({ ok: false, reason });
  if (url.length > WEBHOOK_URL_MAX_LENGTH) return refuse(`must be at most ${WEBHOOK_URL_MAX_LENGTH} characters`);
  if (!URL.canParse(url)) return refuse('is not a valid absolute URL');
  const parsed = new URL(url);
  // The normalized form is what is stored and checked again at each delivery: it must pass too.
  if (parsed.href.length > WEBHOOK_URL_MAX_LENGTH) {
    return refuse(`must be at most ${WEBHOOK_URL_MAX_LENGTH} characters once normalized (this one is ${parsed.href.length}: characters such as quotes and spaces are percent-encoded)`);
  }
  if (parsed.username || parsed.password) return refuse('must not contain a user name or password');
  // A URL may name port 0, where no connection is ever made: every event would fail.
  if (parsed.port === '0') return refuse('must not name port 0');
  const host = bareHost(parsed);
  const local = options.allowLocal && LOCAL_HOSTS.includes(host);
  if (parsed.protocol !== 'https:' && !(local && parsed.protocol === 'http:')) {
    return refuse(options.allowLocal ? 'must use https (or http to 127.0.0.1 or localhost, locally)' : 'must use https');
  }
  if (!local && (host === 'localhost' || host.endsWith('.localhost'))) return refuse(`must not point to ${host}, a loopback name`);

  let answers: { address: string; family: 4 | 6 }[];
  const literal = isIP(host);
  if (literal !== 0) answers = [{ address: host, family: literal === 6 ? 6 : 4 }];
  else {
    const timeoutMs = options.resolveTimeoutMs ?? DNS_ANSWER_MS;
    try {
      answers = await answeredBy((options.resolve ?? systemResolver)(host), Date.now() + timeoutMs, 'DNS');
    } catch (error) {
      // Our deadline, or the DNS client's own tries all unanswered (which may end before it, or after).
      const { name, code } = (error ?? {}) as { name?: unknown; code?: unknown };
      if (name === 'TimeoutError') return { ok: false, reason: `has a host name whose DNS did not answer within ${timeoutMs / 1000} s (${host})`, timedOut: true };
      if (code === 'ETIMEOUT') return { ok: false, reason: `has a host name whose DNS servers did not answer (${host})`, timedOut: true };
      answers = [];
    }
  }
  if (!answers.length) return refuse(`has a host name that does not resolve (${host})`);

  for (const { address } of answers) {
    const why = refusedAddress(address);
    const loopbackAllowed = local && why === 'a loopback address';
    if (why && !loopbackAllowed) return refuse(literal ? `must not point to ${why} (${address})` : `resolves to ${address}, ${why}`);
    if (local && !why) return refuse(`resolves to ${address}; locally, ${host} must lead to this machine`);
  }
  return { ok: true, url: parsed, addresses: answers };
}

import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkWebhookUrl, dnsResolver, refusedAddress, withHosts, type Resolver } from '../../../lambdas/domain/webhooks/url-rules';
import { startDnsStub } from '../../support/dns-stub';

/** A resolver with fixed answers, standing in for DNS (there is none here). */
const resolver =
  (answers: Record<string, string[]>): Resolver =>
  async (hostname) => {
    const addresses = answers[hostname];
    if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };

const dns = resolver({
  'hooks.example.com': ['93.184.215.14'],
  'v6.example.com': ['2606:2800:21f:cb07:6820:80da:af6b:8b2c'],
  'private.example.com': ['10.0.0.7'],
  'mixed.example.com': ['93.184.215.14', '192.168.1.20'],
  'metadata.example.com': ['169.254.169.254'],
  'mapped.example.com': ['::ffff:127.0.0.1'],
  'empty.example.com': [],
  localhost: ['127.0.0.1', '::1'],
});

describe('addresses a webhook may not reach', () => {
  it.each([
    ['0.0.0.0', 'an unspecified address'],
    ['::', 'an unspecified address'],
    ['127.0.0.1', 'a loopback address'],
    ['127.255.0.9', 'a loopback address'],
    ['::1', 'a loopback address'],
    ['10.0.0.1', 'a private address'],
    ['172.16.0.1', 'a private address'],
    ['172.31.255.255', 'a private address'],
    ['192.168.0.1', 'a private address'],
    ['100.64.0.1', 'a carrier-grade NAT address'],
    ['100.127.255.254', 'a carrier-grade NAT address'],
    ['169.254.1.1', 'a link-local address'],
    ['fe80::1', 'a link-local address'],
    ['169.254.169.254', 'a cloud metadata address'],
    ['169.254.170.2', 'a cloud metadata address'],
    ['fd00:ec2::254', 'a cloud metadata address'],
    ['fc00::1', 'a unique local address'],
    ['fd12:3456::1', 'a unique local address'],
    ['224.0.0.1', 'a multicast address'],
    ['239.255.255.250', 'a multicast address'],
    ['ff02::1', 'a multicast address'],
    ['255.255.255.255', 'a reserved address'],
    ['192.0.2.1', 'a reserved address'],
    ['198.18.0.1', 'a reserved address'],
    ['2001:db8::1', 'a reserved address'],
    ['2001:0:4136:e378::1', 'a reserved address'],
    ['100::1', 'a reserved address'],
    ['::ffff:127.0.0.1', 'a loopback address (127.0.0.1, inside an IPv6 address)'],
    ['::ffff:7f00:1', 'a loopback address (127.0.0.1, inside an IPv6 address)'],
    ['::ffff:169.254.169.254', 'a cloud metadata address (169.254.169.254, inside an IPv6 address)'],
    ['::ffff:a00:1', 'a private address (10.0.0.1, inside an IPv6 address)'],
    ['64:ff9b::a9fe:a9fe', 'a cloud metadata address (169.254.169.254, inside an IPv6 address)'],
    ['2002:c0a8:0101::1', 'a private address (192.168.1.1, inside an IPv6 address)'],
    ['::7f00:1', 'a reserved address'],
    ['4000::1', 'a reserved address'],
    ['example.com', 'not an IP address'],
  ])('%s is %s', (address, why) => {
    expect(refusedAddress(address)).toBe(why);
  });

  it.each(['93.184.215.14', '8.8.8.8', '172.32.0.1', '100.128.0.1', '2606:4700:4700::1111', '::ffff:8.8.8.8', '64:ff9b::808:808'])('%s is public', (address) => {
    expect(refusedAddress(address)).toBeUndefined();
  });
});

describe('checkWebhookUrl, deployed', () => {
  const deployed = { resolve: dns, allowLocal: false };

  it('accepts https to a public name, answering the address to connect to', async () => {
    const verdict = await checkWebhookUrl('https://hooks.example.com/messaging?k=1', deployed);
    expect(verdict).toEqual({ ok: true, url: new URL('https://hooks.example.com/messaging?k=1'), addresses: [{ address: '93.184.215.14', family: 4 }] });
  });

  it('refuses a URL over 2048 characters', async () => {
    expect(await checkWebhookUrl(`https://hooks.example.com/${'a'.repeat(2048)}`, deployed)).toEqual({ ok: false, reason: 'must be at most 2048 characters' });
  });

  // The URL stored (and checked again at every delivery) is the normalized one: a URL of 1,900
  // characters whose quotes percent-encode to 5,642 was taken, then refused at every delivery.
  it('refuses a URL whose normalized form is over 2048 characters, and answers a URL it accepts that is no longer', async () => {
    const quoted = `https://hooks.example.com/in/${'"'.repeat(1871)}`;
    expect(quoted).toHaveLength(1900);
    expect(await checkWebhookUrl(quoted, deployed)).toEqual({ ok: false, reason: 'must be at most 2048 characters once normalized (this one is 5642: characters such as quotes and spaces are percent-encoded)' });
    const near = `https://hooks.example.com/in/${'"'.repeat(600)}`;
    const verdict = await checkWebhookUrl(near, deployed);
    expect(verdict).toMatchObject({ ok: true });
    const stored = verdict.ok ? verdict.url.href : '';
    expect(stored.length).toBeLessThanOrEqual(2048);
    expect(await checkWebhookUrl(stored, deployed)).toMatchObject({ ok: true, url: new URL(stored) });
  });

  it('accepts https to a public IPv6 name and to public address literals', async () => {
    expect(await checkWebhookUrl('https://v6.example.com:8443/', deployed)).toMatchObject({ ok: true, addresses: [{ address: '2606:2800:21f:cb07:6820:80da:af6b:8b2c', family: 6 }] });
    expect(await checkWebhookUrl('https://93.184.215.14/', deployed)).toMatchObject({ ok: true, addresses: [{ address: '93.184.215.14', family: 4 }] });
    expect(await checkWebhookUrl('https://[2606:4700:4700::1111]/', deployed)).toMatchObject({ ok: true, addresses: [{ address: '2606:4700:4700::1111', family: 6 }] });
  });

  it.each([
    ['http://hooks.example.com/', 'must use https'],
    ['ftp://hooks.example.com/', 'must use https'],
    ['hooks.example.com/path', 'is not a valid absolute URL'],
    ['', 'is not a valid absolute URL'],
    ['https://user:pass@hooks.example.com/', 'must not contain a user name or password'],
    // No connection is made to port 0: every event to it would fail, after the endpoint was accepted.
    ['https://hooks.example.com:0/', 'must not name port 0'],
    ['https://127.0.0.1/', 'must not point to a loopback address (127.0.0.1)'],
    ['http://127.0.0.1:8080/', 'must use https'],
    ['https://localhost/', 'must not point to localhost, a loopback name'],
    ['https://api.localhost/', 'must not point to api.localhost, a loopback name'],
    ['https://10.0.0.1/', 'must not point to a private address (10.0.0.1)'],
    ['https://0x7f.1/', 'must not point to a loopback address (127.0.0.1)'],
    ['https://2130706433/', 'must not point to a loopback address (127.0.0.1)'],
    ['https://169.254.169.254/latest/meta-data/', 'must not point to a cloud metadata address (169.254.169.254)'],
    ['https://[::1]/', 'must not point to a loopback address (::1)'],
    ['https://[::ffff:10.0.0.1]/', 'must not point to a private address (10.0.0.1, inside an IPv6 address) (::ffff:a00:1)'],
    ['https://[fd00:ec2::254]/', 'must not point to a cloud metadata address (fd00:ec2::254)'],
    ['https://private.example.com/', 'resolves to 10.0.0.7, a private address'],
    ['https://mixed.example.com/', 'resolves to 192.168.1.20, a private address'],
    ['https://metadata.example.com/', 'resolves to 169.254.169.254, a cloud metadata address'],
    ['https://mapped.example.com/', 'resolves to ::ffff:127.0.0.1, a loopback address (127.0.0.1, inside an IPv6 address)'],
    ['https://nowhere.example.com/', 'has a host name that does not resolve (nowhere.example.com)'],
    ['https://empty.example.com/', 'has a host name that does not resolve (empty.example.com)'],
  ])('refuses %s: %s', async (url, reason) => {
    expect(await checkWebhookUrl(url, deployed)).toEqual({ ok: false, reason });
  });

  it('refuses a name whose DNS does not answer in time, rather than holding the request until the function times out', async () => {
    const stalled = () => new Promise<never>(() => undefined);
    expect(await checkWebhookUrl('https://slow.example.com/', { resolve: stalled, allowLocal: false, resolveTimeoutMs: 50 })).toEqual({
      ok: false,
      reason: 'has a host name whose DNS did not answer within 0.05 s (slow.example.com)',
      timedOut: true,
    });
  });

  it('says the DNS servers did not answer, with no time of ours, when the DNS client gave up first', async () => {
    const gaveUp = () => Promise.reject(Object.assign(new Error('queryA ETIMEOUT slow.example.com'), { code: 'ETIMEOUT' }));
    expect(await checkWebhookUrl('https://slow.example.com/', { resolve: gaveUp, allowLocal: false, resolveTimeoutMs: 5_000 })).toEqual({
      ok: false,
      reason: 'has a host name whose DNS servers did not answer (slow.example.com)',
      timedOut: true,
    });
  });
});

describe('checkWebhookUrl, in the local runtime', () => {
  const local = { resolve: dns, allowLocal: true };

  it.each([
    ['http://127.0.0.1:4000/hooks', ['127.0.0.1']],
    ['http://localhost:4000/hooks', ['127.0.0.1', '::1']],
    ['https://127.0.0.1/', ['127.0.0.1']],
    ['https://hooks.example.com/', ['93.184.215.14']],
  ])('accepts %s, with every address it may connect to', async (url, addresses) => {
    const verdict = await checkWebhookUrl(url, local);
    expect(verdict.ok && verdict.addresses.map(({ address }) => address)).toEqual(addresses);
  });

  it.each([
    ['http://hooks.example.com/', 'must use https (or http to 127.0.0.1 or localhost, locally)'],
    ['http://127.0.0.2/', 'must use https (or http to 127.0.0.1 or localhost, locally)'],
    ['http://[::1]/', 'must use https (or http to 127.0.0.1 or localhost, locally)'],
    ['http://10.0.0.1/', 'must use https (or http to 127.0.0.1 or localhost, locally)'],
    ['https://10.0.0.1/', 'must not point to a private address (10.0.0.1)'],
    ['https://169.254.169.254/', 'must not point to a cloud metadata address (169.254.169.254)'],
    ['https://private.example.com/', 'resolves to 10.0.0.7, a private address'],
    ['https://api.localhost/', 'must not point to api.localhost, a loopback name'],
  ])('refuses %s: %s', async (url, reason) => {
    expect(await checkWebhookUrl(url, local)).toEqual({ ok: false, reason });
  });

  it('refuses localhost when it resolves anywhere but this machine', async () => {
    const hijacked = resolver({ localhost: ['10.0.0.9'] });
    expect(await checkWebhookUrl('http://localhost/', { resolve: hijacked, allowLocal: true })).toEqual({ ok: false, reason: 'resolves to 10.0.0.9, a private address' });
    const publicAnswer = resolver({ localhost: ['93.184.215.14'] });
    expect(await checkWebhookUrl('http://localhost/', { resolve: publicAnswer, allowLocal: true })).toEqual({
      ok: false,
      reason: 'resolves to 93.184.215.14; locally, localhost must lead to this machine',
    });
  });
});

describe('withHosts', () => {
  it('answers its own names, in any case, and asks the fallback about the rest', async () => {
    const resolve = withHosts({ 'internal.example.test': '10.1.2.3', 'v6.example.test': 'fd00::1' }, dns);
    expect(await resolve('Internal.Example.Test')).toEqual([{ address: '10.1.2.3', family: 4 }]);
    expect(await resolve('v6.example.test')).toEqual([{ address: 'fd00::1', family: 6 }]);
    expect(await resolve('hooks.example.com')).toEqual([{ address: '93.184.215.14', family: 4 }]);
    expect(await checkWebhookUrl('https://internal.example.test/', { resolve, allowLocal: false })).toEqual({ ok: false, reason: 'resolves to 10.1.2.3, a private address' });
  });
});

describe('the deployed resolver', () => {
  let stub: Awaited<ReturnType<typeof startDnsStub>>;
  beforeAll(
    async () =>
      (stub = await startDnsStub(
        { 'hooks.example.test': { A: ['93.184.215.14'], AAAA: ['2606:2800:21f:cb07:6820:80da:af6b:8b2c'] }, 'v4.example.test': { A: ['93.184.215.15'] }, 'no-aaaa.example.test': { A: ['93.184.215.16'] } },
        ['silent.example.test'],
        ['no-aaaa.example.test'],
      )),
  );
  afterAll(() => stub.close());

  // Name servers and middleboxes that drop AAAA queries still exist: waiting out c-ares's tries
  // for the AAAA (about 3.7 s) threw away the A answer in hand and passed the route's 3 s.
  it('answers by the A records when the AAAA query is never answered, within the route’s deadline', async () => {
    expect(await checkWebhookUrl('https://no-aaaa.example.test/hook', { resolve: dnsResolver([stub.server]), allowLocal: false })).toEqual({
      ok: true,
      url: new URL('https://no-aaaa.example.test/hook'),
      addresses: [{ address: '93.184.215.16', family: 4 }],
    });
  });

  it('answers every A and AAAA address of a name from the DNS servers, and refuses a name they do not know', async () => {
    const resolve = dnsResolver([stub.server]);
    expect(await resolve('hooks.example.test')).toEqual([
      { address: '93.184.215.14', family: 4 },
      { address: '2606:2800:21f:cb07:6820:80da:af6b:8b2c', family: 6 },
    ]);
    expect(await resolve('v4.example.test')).toEqual([{ address: '93.184.215.15', family: 4 }]);
    await expect(resolve('nowhere.example.test')).rejects.toMatchObject({ code: 'ENOTFOUND' });
    expect(await checkWebhookUrl('https://nowhere.example.test/', { resolve, allowLocal: false })).toEqual({ ok: false, reason: 'has a host name that does not resolve (nowhere.example.test)' });
  });

  it('counts a name whose servers never answer as a timeout, not a refused URL', async () => {
    const verdict = await checkWebhookUrl('https://silent.example.test/', { resolve: dnsResolver([stub.server], { tryMs: 100 }), allowLocal: false, resolveTimeoutMs: 10_000 });
    expect(verdict).toMatchObject({ ok: false, timedOut: true });
  });

  // getaddrinfo holds one of libuv's threads (four) until the system's resolver gives up, seconds
  // per try: an endpoint whose name servers never answer, posted to in parallel, held every thread,
  // and every other workspace's lookup waited behind it and timed out.
  it('answers while every libuv thread is held, as a lookup through getaddrinfo could not', async () => {
    const threads = Number(process.env.UV_THREADPOOL_SIZE ?? 4);
    const dir = mkdtempSync(join(tmpdir(), 'fifo-'));
    const fifos = Array.from({ length: threads }, (_, i) => join(dir, `held-${i}`));
    for (const fifo of fifos) execFileSync('mkfifo', [fifo]);
    // Opening a FIFO to read blocks its thread until a writer opens it.
    const held = fifos.map((fifo) => readFile(fifo, 'utf8'));
    let waiting: NodeJS.Timeout | undefined;
    try {
      const answered = await Promise.race([dnsResolver([stub.server])('v4.example.test'), new Promise((resolve) => (waiting = setTimeout(() => resolve('still waiting for a thread'), 5_000)))]);
      expect(answered).toEqual([{ address: '93.184.215.15', family: 4 }]);
    } finally {
      clearTimeout(waiting);
      for (const fifo of fifos) writeFileSync(fifo, 'released');
      await Promise.all(held);
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

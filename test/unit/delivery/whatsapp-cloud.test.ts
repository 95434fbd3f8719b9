import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { type ProviderError } from '../../../lambdas/domain/providers/provider';
import { whatsAppCloudProvider } from '../../../lambdas/domain/providers/whatsapp-cloud';
import { classifyUnansweredSend } from '../../../lambdas/domain/providers/whatsapp-errors';
import { readWhatsAppTemplateFixture, startGraphStub, type GraphStub } from '../../support/graph-stub';

/** The local Graph API stand-in (test/support/graph-stub.ts): answers what each test scripts, records what it got. */
let stub: GraphStub;
let baseUrl: string;
let received: GraphStub['received'];
let answer: GraphStub['answer'];

beforeAll(async () => {
  stub = await startGraphStub((request) => answer(request));
  baseUrl = stub.baseUrl;
  received = stub.received;
});
afterAll(() => stub.close());
beforeEach(() => (received.length = 0));

const provider = (timeoutMs = 1_000) =>
  whatsAppCloudProvider({ baseUrl, timeoutMs, credentials: () => Promise.resolve({ accessToken: 'token-1', appSecret: 's', verifyToken: 'v', phoneNumberId: '1111' }) });
const message = { dispatchId: '3f2b0c1e-5d6a-4b7c-8d9e-0f1a2b3c4d5e', to: '+6281234567890', templateName: 'order_shipped', language: 'id', bodyParameters: ['Budi', 'A-1'] };
const verdict = (promise: Promise<unknown>) => promise.then(() => undefined, (error: ProviderError) => [error.kind, error.code]);

/**
 * A host that answers no connection, as one behind a dropped SYN: a listener whose process is
 * stopped, its accept queue filled, so the kernel completes no new connect. Nothing reaches it.
 */
async function hostDroppingConnections(): Promise<{ port: number; close: () => void }> {
  const child = spawn(process.execPath, ['-e', "const s=require('net').createServer();s.listen({port:0,host:'127.0.0.1',backlog:1},()=>console.log(s.address().port))"], { stdio: ['ignore', 'pipe', 'ignore'] });
  const port = await new Promise<number>((resolve) => child.stdout.once('data', (data: Buffer) => resolve(Number(String(data).trim()))));
  process.kill(child.pid!, 'SIGSTOP');
  const fillers: Socket[] = [];
  for (let i = 0; i < 4; i++) fillers.push(connect(port, '127.0.0.1').on('error', () => undefined));
  await new Promise((resolve) => setTimeout(resolve, 300));
  return {
    port,
    close: () => {
      for (const filler of fillers) filler.destroy();
      child.kill('SIGKILL');
    },
  };
}

describe('WhatsApp Cloud API provider', () => {
  it('loads its credentials when asked to get ready, before any request, and names a credential store that does not answer as transient', async () => {
    let reads = 0;
    const ready = whatsAppCloudProvider({ baseUrl, timeoutMs: 1_000, credentials: () => ((reads += 1), Promise.resolve({ accessToken: 't', appSecret: 's', verifyToken: 'v' })) });
    await ready.ready!();
    expect([reads, received]).toEqual([1, []]);

    const unreachable = whatsAppCloudProvider({ baseUrl, timeoutMs: 1_000, credentials: () => Promise.reject(new Error('Secrets Manager timed out')) });
    expect(await verdict(unreachable.ready!())).toEqual(['transient', 'credentials_unavailable']);
    expect(await verdict(unreachable.send(message))).toEqual(['transient', 'credentials_unavailable']);
    expect(received).toEqual([]);
  });

  it('posts the template with its body parameters and the dispatch id as callback data, with the bearer token, and names the number that sent it', async () => {
    answer = () => ({ status: 200, body: { messaging_product: 'whatsapp', messages: [{ id: 'wamid.HBg' }] } });
    await expect(provider().send(message)).resolves.toEqual({ providerMessageId: 'wamid.HBg', phoneNumberId: '1111' });
    expect(received).toEqual([
      {
        method: 'POST',
        url: '/v26.0/1111/messages',
        authorization: 'Bearer token-1',
        body: {
          messaging_product: 'whatsapp',
          recipient_type: 'individual',
          to: '6281234567890',
          type: 'template',
          biz_opaque_callback_data: message.dispatchId,
          template: {
            name: 'order_shipped',
            language: { code: 'id' },
            components: [{ type: 'body', parameters: [{ type: 'text', text: 'Budi' }, { type: 'text', text: 'A-1' }] }],
          },
        },
      },
    ]);
  });

  it('tells a message WhatsApp holds for its template’s quality assessment (template pacing) from one it accepted', async () => {
    answer = () => ({ status: 200, body: readWhatsAppTemplateFixture('send-held-for-quality-assessment.json') });
    await expect(provider().send(message)).resolves.toEqual({ providerMessageId: 'wamid.HBgNNjI4MTIzNDU2Nzg5MBUCABEYEkhFTERGT1JRVUFMSVRZMDAxAA==', phoneNumberId: '1111', held: true });
    for (const [status, expected] of [['accepted', { providerMessageId: 'wamid.5', phoneNumberId: '1111' }], ['paused', { providerMessageId: 'wamid.5', phoneNumberId: '1111', held: true }]] as const) {
      answer = () => ({ status: 200, body: { messaging_product: 'whatsapp', messages: [{ id: 'wamid.5', message_status: status }] } });
      await expect(provider().send(message)).resolves.toEqual(expected);
    }
  });

  it('uses the workspace’s own number when it has one', async () => {
    answer = () => ({ status: 200, body: { messages: [{ id: 'wamid.2' }] } });
    await expect(provider().send({ ...message, phoneNumberId: '2222' })).resolves.toEqual({ providerMessageId: 'wamid.2', phoneNumberId: '2222' });
    expect(received[0]!.url).toBe('/v26.0/2222/messages');
  });

  it.each([
    [400, 131026, ['permanent', '131026']],
    [429, 130429, ['transient', '130429']],
    [400, 131056, ['transient', '131056']],
    [500, undefined, ['transient', 'http_500']],
    [503, undefined, ['transient', 'http_503']],
  ])('maps HTTP %s code %s to %j', async (status, code, expected) => {
    answer = () => ({ status, body: code ? { error: { code, message: 'x' } } : {} });
    expect(await verdict(provider().send(message))).toEqual(expected);
  });

  // By the code, whatever the HTTP status: sources give 400 and 429 for 131056, 500 for 131057.
  it.each([400, 429, 500])('calls the pair rate limit (131056) and maintenance mode (131057) refusals that last minutes, at HTTP %s, and no other “later” so', async (status) => {
    const refusal = (body: unknown) => {
      answer = () => ({ status, body });
      return provider().send(message).then(() => undefined, (error: ProviderError) => [error.kind, error.code, error.backOff]);
    };
    expect(await refusal(readWhatsAppTemplateFixture('error-131056.json'))).toEqual(['transient', '131056', 'long']);
    expect(await refusal(readWhatsAppTemplateFixture('error-131057.json'))).toEqual(['transient', '131057', 'long']);
    expect(await refusal({ error: { code: 130429, message: '(#130429) Rate limit hit', type: 'OAuthException' } })).toEqual(['transient', '130429', 'short']);
  });

  it('calls a send refused for its sender (131042: the account’s payment method) permanent: retrying fails alike until the owner fixes it', async () => {
    answer = () => ({ status: 400, body: readWhatsAppTemplateFixture('error-131042.json') });
    expect(await verdict(provider().send(message))).toEqual(['permanent', '131042']);
  });

  it('calls a slow answer unknown: WhatsApp may have taken the message', async () => {
    answer = () => ({ status: 200, body: { messages: [{ id: 'late' }] }, delayMs: 300 });
    expect(await verdict(provider(100).send(message))).toEqual(['unknown', 'timeout']);
  });

  it('calls a refused connection transient: nothing was sent', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise((resolve) => closed.close(resolve));
    const unreachable = whatsAppCloudProvider({ baseUrl: `http://127.0.0.1:${port}/v26.0`, timeoutMs: 1_000, credentials: () => Promise.resolve({ accessToken: 't', appSecret: 's', verifyToken: 'v', phoneNumberId: '1' }) });
    expect(await verdict(unreachable.send(message))).toEqual(['transient', 'network']);
  });

  // A dropped SYN (a blackholed route, a NAT gateway down) hangs the connect past our timeout, which
  // is shorter than the HTTP client's own connect timeout: the abort read as "WhatsApp may have it",
  // and every message in flight ended `unknown`, never sent (decision 215).
  it('calls a connect that never completed a connection never made, though our timeout ended it: nothing was written', async () => {
    const host = await hostDroppingConnections();
    try {
      const blackholed = whatsAppCloudProvider({ baseUrl: `http://127.0.0.1:${host.port}/v26.0`, timeoutMs: 500, credentials: () => Promise.resolve({ accessToken: 't', appSecret: 's', verifyToken: 'v', phoneNumberId: '1' }) });
      const error = await blackholed.send(message).then(() => undefined, (failure: ProviderError) => failure);
      expect([error?.kind, error?.code, error?.reached]).toEqual(['transient', 'network', false]);
    } finally {
      host.close();
    }
  });

  it('calls an error that reads like a connection never made unknown once the request was written: a kept-alive connection may fail after WhatsApp read it', () => {
    const tlsError = Object.assign(new TypeError('fetch failed'), { cause: { code: 'ERR_SSL_BAD_RECORD_MAC' } });
    expect(classifyUnansweredSend(tlsError, 1_000, 't', { made: true, written: true })).toMatchObject({ kind: 'unknown', code: 'connection_lost', reached: true });
    expect(classifyUnansweredSend(tlsError, 1_000, 't', { made: true, written: false })).toMatchObject({ kind: 'transient', code: 'network', reached: false });
    // A stand-in `fetch` tells nothing of its request: the code decides, as before.
    expect(classifyUnansweredSend(tlsError, 1_000, 't', { made: false, written: false })).toMatchObject({ kind: 'transient', code: 'network', reached: false });
  });

  // Sending again on these would send twice whenever WhatsApp had taken the message (decision 160).
  it('calls a connection lost after WhatsApp read the whole request unknown, not a “later”: it may have sent the message', async () => {
    answer = () => ({ status: 0, body: undefined, hangUp: true });
    expect(await verdict(provider().send(message))).toEqual(['unknown', 'connection_lost']);
    expect(received).toHaveLength(1);
  });

  it.each([502, 504])('calls a gateway’s own HTTP %s (no Graph error in it) unknown; a Graph error at that status stays a “later”', async (status) => {
    answer = () => ({ status, body: `<html><body>${status} Gateway</body></html>` });
    expect(await verdict(provider().send(message))).toEqual(['unknown', `http_${status}`]);
    answer = () => ({ status, body: { error: { code: 2, message: 'Service temporarily unavailable' } } });
    expect(await verdict(provider().send(message))).toEqual(['transient', '2']);
  });
});

describe('WhatsApp Cloud API provider, templates synced with header and buttons', () => {
  it('sends named body parameters with their names, the header and each button with its sub_type and index', async () => {
    answer = () => ({ status: 200, body: { messages: [{ id: 'wamid.3' }] } });
    await provider().send({
      ...message,
      templateName: 'reservation_confirmation',
      language: 'en_US',
      bodyParameters: ['4', 'Saturday'],
      bodyParameterNames: ['number_of_guests', 'day'],
      header: { type: 'image', link: 'https://example.com/table.jpg' },
      buttons: [
        { index: 0, subType: 'url', value: 'R-1042' },
        { index: 2, subType: 'quick_reply', value: 'cancel-R-1042' },
      ],
    });
    expect((received[0]!.body as { template: unknown }).template).toEqual({
      name: 'reservation_confirmation',
      language: { code: 'en_US' },
      components: [
        { type: 'header', parameters: [{ type: 'image', image: { link: 'https://example.com/table.jpg' } }] },
        {
          type: 'body',
          parameters: [
            { type: 'text', parameter_name: 'number_of_guests', text: '4' },
            { type: 'text', parameter_name: 'day', text: 'Saturday' },
          ],
        },
        { type: 'button', sub_type: 'url', index: 0, parameters: [{ type: 'text', text: 'R-1042' }] },
        { type: 'button', sub_type: 'quick_reply', index: 2, parameters: [{ type: 'payload', payload: 'cancel-R-1042' }] },
      ],
    });
  });

  it('sends a text header, a location header and a copy-code button in Meta’s shapes', async () => {
    answer = () => ({ status: 200, body: { messages: [{ id: 'wamid.4' }] } });
    await provider().send({ ...message, header: { type: 'text', text: 'Pablo' }, buttons: [{ index: 0, subType: 'copy_code', value: 'SUMMER20' }] });
    await provider().send({ ...message, header: { type: 'location', latitude: '-6.2', longitude: '106.8', name: 'Gudang' } });
    const components = received.map((request) => (request.body as { template: { components: unknown[] } }).template.components);
    expect(components[0]).toEqual([
      { type: 'header', parameters: [{ type: 'text', text: 'Pablo' }] },
      { type: 'body', parameters: [{ type: 'text', text: 'Budi' }, { type: 'text', text: 'A-1' }] },
      { type: 'button', sub_type: 'copy_code', index: 0, parameters: [{ type: 'coupon_code', coupon_code: 'SUMMER20' }] },
    ]);
    expect(components[1]![0]).toEqual({ type: 'header', parameters: [{ type: 'location', location: { latitude: '-6.2', longitude: '106.8', name: 'Gudang' } }] });
  });

  it('calls an expired access token (190) a credentials verdict: delivery holds instead of failing', async () => {
    answer = () => ({ status: 401, body: { error: { message: 'Error validating access token: Session has expired', type: 'OAuthException', code: 190, error_subcode: 463 } } });
    expect(await verdict(provider().send(message))).toEqual(['credentials', '190']);
  });
});

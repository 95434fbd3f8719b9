import type { ProviderError } from '../../../lambdas/domain/providers/provider';
import { whatsAppCloudProvider } from '../../../lambdas/domain/providers/whatsapp-cloud';
import { readStatus } from '../../../lambdas/domain/providers/whatsapp-webhook';
import { graphTemplateSchema } from '../../../lambdas/domain/providers/whatsapp-templates';
import { syncedContent } from '../../../lambdas/domain/templates/component-reading';
import { templateParameters } from '../../../lambdas/domain/templates/render';
import { readWhatsAppTemplateFixture, startGraphStub, type GraphStub } from '../../support/graph-stub';

/**
 * Sends and answers as Meta's reference documents them (send-message reference, template
 * parameter formats, error codes), through the real sync → render → provider path.
 */
let stub: GraphStub;
let answer: GraphStub['answer'];
beforeAll(async () => (stub = await startGraphStub((request) => answer(request))));
afterAll(() => stub.close());
beforeEach(() => (stub.received.length = 0));

const provider = () => whatsAppCloudProvider({ baseUrl: stub.baseUrl, timeoutMs: 1_000, credentials: () => Promise.resolve({ accessToken: 't', appSecret: 's', verifyToken: 'v', phoneNumberId: '1111' }) });
const base = { dispatchId: '3f2b0c1e-5d6a-4b7c-8d9e-0f1a2b3c4d5e', to: '+6281234567890', language: 'en' };

describe('Meta-documented template sends', () => {
  it('a POSITIONAL template with a text header sends its header parameter without parameter_name (positional format)', async () => {
    answer = () => ({ status: 200, body: { messaging_product: 'whatsapp', contacts: [{ input: '+6281234567890', wa_id: '6281234567890' }], messages: [{ id: 'wamid.1', message_status: 'accepted' }] } });
    const page = readWhatsAppTemplateFixture<{ data: unknown[] }>('page-1.json');
    const graph = graphTemplateSchema.parse(page.data.find((t) => (t as { name: string }).name === 'coupon_expiration_reminder'));
    expect(graph.parameter_format).toBe('POSITIONAL');
    const content = syncedContent(graph)!;
    const values = new Map(content.variableDefinitions.map((v) => [v.name, `v:${v.name}`]));
    await provider().send({ ...base, templateName: graph.name, bodyParameters: ['Pablo', '3'], ...templateParameters(content, values) });
    const components = (stub.received[0]!.body as { template: { components: { type: string; parameters: Record<string, unknown>[] }[] } }).template.components;
    const header = components.find((c) => c.type === 'header')!;
    expect(header.parameters).toEqual([{ type: 'text', text: 'v:header_1' }]);
  });

  it('a NAMED template names its header and body parameters (parameter_name), as Meta documents for named templates', async () => {
    answer = () => ({ status: 200, body: { messaging_product: 'whatsapp', contacts: [{ input: '+6281234567890', wa_id: '6281234567890' }], messages: [{ id: 'wamid.2', message_status: 'accepted' }] } });
    const graph = graphTemplateSchema.parse({
      name: 'seasonal_promotion',
      language: 'en_US',
      status: 'APPROVED',
      category: 'MARKETING',
      id: '1',
      parameter_format: 'NAMED',
      components: [
        { type: 'HEADER', format: 'TEXT', text: '{{sale_name}} is here!' },
        { type: 'BODY', text: 'Save with code {{discount_code}} until {{end_date}}.' },
      ],
    });
    const content = syncedContent(graph)!;
    const values = new Map(content.variableDefinitions.map((v) => [v.name, `v:${v.name}`]));
    await provider().send({ ...base, templateName: graph.name, bodyParameters: ['v:discount_code', 'v:end_date'], ...templateParameters(content, values) });
    const components = (stub.received[0]!.body as { template: { components: { type: string; parameters: Record<string, unknown>[] }[] } }).template.components;
    expect(components).toEqual([
      { type: 'header', parameters: [{ type: 'text', parameter_name: 'sale_name', text: 'v:header_sale_name' }] },
      { type: 'body', parameters: [{ type: 'text', parameter_name: 'discount_code', text: 'v:discount_code' }, { type: 'text', parameter_name: 'end_date', text: 'v:end_date' }] },
    ]);
  });
});

describe('Meta-documented error answers', () => {
  it('keeps what Meta says of a refusal beyond its code: error_data.details in the message; error_subcode and fbtrace_id as its detail, for the log line', async () => {
    answer = () => ({
      status: 400,
      body: { error: { message: '(#100) Invalid parameter', type: 'OAuthException', code: 100, error_data: { messaging_product: 'whatsapp', details: 'Parameter name is missing or empty' }, error_subcode: 2494010, fbtrace_id: 'AyUmjG0DS0cEXZZwn8esb2q' } },
    });
    const error = (await provider().send({ ...base, templateName: 'x', bodyParameters: [] }).catch((e: unknown) => e)) as ProviderError;
    expect([error.kind, error.code]).toEqual(['permanent', '100']);
    expect(error.message).toBe('(#100) Invalid parameter: Parameter name is missing or empty');
    expect(error.detail).toEqual({ type: 'OAuthException', subcode: 2494010, details: 'Parameter name is missing or empty', fbtraceId: 'AyUmjG0DS0cEXZZwn8esb2q' });
  });

  it('reads a failed status’s title and error_data.details beside its code (Meta’s 131049 example)', () => {
    const failed = readStatus({
      id: 'wamid.F', status: 'failed', timestamp: '1767225600', recipient_id: '6281234567890',
      errors: [{ code: 131049, title: 'This message was not delivered to maintain healthy ecosystem engagement.', error_data: { details: 'In order to maintain a healthy ecosystem engagement, the message failed to be delivered.' } }],
    });
    expect(failed).toMatchObject({
      ok: true,
      value: { failureCode: '131049', failureDetail: { title: 'This message was not delivered to maintain healthy ecosystem engagement.', details: 'In order to maintain a healthy ecosystem engagement, the message failed to be delivered.' } },
    });
  });

  it('keeps the code and the status when error_data is not the documented object (some Graph errors give a string)', async () => {
    answer = () => ({ status: 400, body: { error: { message: '(#131026) Message undeliverable', code: 131026, error_data: 'unexpected', fbtrace_id: 'Ax1' } } });
    const error = (await provider().send({ ...base, templateName: 'x', bodyParameters: [] }).catch((e: unknown) => e)) as ProviderError;
    expect([error.kind, error.code, error.message, error.detail]).toEqual(['permanent', '131026', '(#131026) Message undeliverable', { fbtraceId: 'Ax1' }]);
    const failed = readStatus({ id: 'wamid.G', status: 'failed', timestamp: '1767225600', recipient_id: '6281234567890', errors: [{ code: 131026, title: 'Message undeliverable', error_data: 42 }] });
    expect(failed).toMatchObject({ ok: true, value: { failureCode: '131026', failureDetail: { title: 'Message undeliverable', details: null } } });
  });
});

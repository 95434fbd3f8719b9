import { SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { handler } from '../../../lambdas/handlers/send-message';
import { encodeBody, encodings, type Encoding } from '../../support/encodings';
import { resetContainerCaches } from '../../../lib/testing';
import { lambdaContext, parseResult, routeEvent } from '../../support/events';
import { SEND_KEY, stubHealthySend, TEMPLATE_ID, validSend, WIDE_TEMPLATE_ID } from '../../support/send-fixtures';

const ddb = mockClient(DynamoDBDocumentClient);
const sqs = mockClient(SQSClient);

beforeEach(() => {
  ddb.reset();
  sqs.reset();
  resetContainerCaches();
  stubHealthySend(ddb, sqs);
});

async function send(body: Record<string, unknown>, encoding: Encoding = 'json') {
  const encoded = encodeBody(body, encoding);
  return parseResult(await handler(routeEvent('sendMessage', { apiKey: SEND_KEY, body: encoded.body, headers: encoded.headers }), lambdaContext('sendMessage')));
}

const x = (n: number) => 'x'.repeat(n);
const uuids = (n: number) => Array.from({ length: n }, (_, i) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`);
const variables = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`v${i}`, 'x']));
const template = (content: Record<string, unknown>) => ({ type: 'template', templateId: TEMPLATE_ID, ...content });

/**
 * Each limit of docs/api.md#send-a-message and #limits: the value at the limit passes validation, one past
 * fails with 422 validation_failed naming the field. A passing template send is 202; a passing
 * non-template variant reaches the delivery check and is 422 unsupported_channel_content.
 */
const boundaries: { rule: string; atLimit: Record<string, unknown>; pastLimit: Record<string, unknown>; field: string; passes: 202 | 'unsupported' }[] = [
  { rule: 'contactName ≤ 200', atLimit: validSend({ contactName: x(200) }), pastLimit: validSend({ contactName: x(201) }), field: 'body.contactName', passes: 202 },
  { rule: 'tagIds ≤ 100', atLimit: validSend({ tagIds: uuids(100) }), pastLimit: validSend({ tagIds: uuids(101) }), field: 'tagIds', passes: 202 },
  { rule: 'trackingTags ≤ 20', atLimit: validSend({ trackingTags: uuids(20) }), pastLimit: validSend({ trackingTags: uuids(21) }), field: 'trackingTags', passes: 202 },
  { rule: 'tracking tag ≤ 256', atLimit: validSend({ trackingTags: [x(256)] }), pastLimit: validSend({ trackingTags: [x(257)] }), field: 'body.trackingTags.0', passes: 202 },
  { rule: 'tracking tag ≥ 1 after trimming', atLimit: validSend({ trackingTags: [' a '] }), pastLimit: validSend({ trackingTags: ['   '] }), field: 'body.trackingTags.0', passes: 202 },
  { rule: 'variable value ≤ 4000', atLimit: validSend({ content: template({ variables: { name: x(4000), order: '1' } }) }), pastLimit: validSend({ content: template({ variables: { name: x(4001), order: '1' } }) }), field: 'body.content.variables.name', passes: 202 },
  { rule: 'text 1..4000', atLimit: validSend({ content: { type: 'text', text: x(4000) } }), pastLimit: validSend({ content: { type: 'text', text: x(4001) } }), field: 'body.content.text', passes: 'unsupported' },
  { rule: 'image caption ≤ 1024', atLimit: validSend({ content: { type: 'image', url: 'https://cdn.example.com/a.png', caption: x(1024) } }), pastLimit: validSend({ content: { type: 'image', url: 'https://cdn.example.com/a.png', caption: x(1025) } }), field: 'body.content.caption', passes: 'unsupported' },
  { rule: 'image url is https', atLimit: validSend({ content: { type: 'image', url: 'https://cdn.example.com/a.png' } }), pastLimit: validSend({ content: { type: 'image', url: 'http://cdn.example.com/a.png' } }), field: 'body.content.url', passes: 'unsupported' },
  { rule: 'document filename ≤ 255', atLimit: validSend({ content: { type: 'document', url: 'https://cdn.example.com/a.pdf', filename: x(255) } }), pastLimit: validSend({ content: { type: 'document', url: 'https://cdn.example.com/a.pdf', filename: x(256) } }), field: 'body.content.filename', passes: 'unsupported' },
  { rule: 'document caption ≤ 1024', atLimit: validSend({ content: { type: 'document', url: 'https://cdn.example.com/a.pdf', filename: 'a.pdf', caption: x(1024) } }), pastLimit: validSend({ content: { type: 'document', url: 'https://cdn.example.com/a.pdf', filename: 'a.pdf', caption: x(1025) } }), field: 'body.content.caption', passes: 'unsupported' },
  { rule: 'document filename ≥ 1', atLimit: validSend({ content: { type: 'document', url: 'https://cdn.example.com/a.pdf', filename: 'a' } }), pastLimit: validSend({ content: { type: 'document', url: 'https://cdn.example.com/a.pdf', filename: '' } }), field: 'body.content.filename', passes: 'unsupported' },
];

describe.each(encodings)('POST /v1/messages limits, %s body', (encoding) => {
  it.each(boundaries)('$rule: at the limit passes, one past is 422', async ({ atLimit, pastLimit, field, passes }) => {
    const ok = await send(atLimit, encoding);
    if (passes === 202) expect(ok.status).toBe(202);
    else expect([ok.status, ok.body.error]).toEqual([422, 'unsupported_channel_content']);

    const rejected = await send(pastLimit, encoding);
    expect(rejected.status).toBe(422);
    expect(rejected.body.error).toBe('validation_failed');
    expect(rejected.body.message).toContain(field);
  });

  // docs/api.md: trackingTags "at most 20 … duplicates are dropped": the limit counts the tags kept,
  // so 20 with one written twice are the 20 (the integ review; decision 223).
  it('takes 20 distinct tracking tags with one written twice as the 20, and refuses 21 distinct', async () => {
    const tags = Array.from({ length: 20 }, (_, i) => `tag-${i}`);
    const repeated = await send(validSend({ trackingTags: [...tags, ' tag-0 '] }), encoding);
    expect([repeated.status, repeated.body.error]).toEqual([202, undefined]);
    expect(ddb.commandCalls(TransactWriteCommand)[0]!.args[0].input.TransactItems![0]!.Put!.Item!.trackingTags).toEqual(tags);

    const distinct = await send(validSend({ trackingTags: [...tags, 'tag-20', 'tag-20'] }), encoding);
    expect([distinct.status, distinct.body.message]).toEqual([422, 'body.trackingTags: at most 20 distinct tags (each trimmed; a tag given twice counts once)']);
  });

  it('rejects an empty "to" and an unknown field', async () => {
    expect((await send(validSend({ to: '' }), encoding)).body.message).toContain('body.to');
    const unknown = await send(validSend({ tracking_tags: ['x'] }), encoding);
    expect([unknown.status, unknown.body.message]).toEqual([422, 'body: Unrecognized key: "tracking_tags"']);
  });

  // The contract sets `to` no maximum ("Length >= 1"): a long one is valid in shape, and then either
  // not a phone number (whatsapp) or a channel this API does not deliver (instagram).
  it('takes a long "to" as valid in shape: not a phone number on whatsapp, quoted short; unsupported on instagram', async () => {
    const phone = await send(validSend({ to: '1'.repeat(300) }), encoding);
    expect([phone.status, phone.body.error, phone.body.message]).toEqual([422, 'validation_failed', `to: "${'1'.repeat(64)}…" is not a valid phone number`]);
    // Cut by characters: an emoji on the cut stays whole, never half a surrogate pair in the answer.
    const emoji = await send(validSend({ to: `${'1'.repeat(63)}😀${'1'.repeat(100)}` }), encoding);
    expect(emoji.body.message).toBe(`to: "${'1'.repeat(63)}😀…" is not a valid phone number`);
    const instagram = await send(validSend({ channel: 'instagram', to: 'u'.repeat(300), content: { type: 'text', text: 'hi' } }), encoding);
    expect([instagram.status, instagram.body.error]).toEqual([422, 'unsupported_channel_content']);
    expect(ddb.commandCalls(TransactWriteCommand)).toHaveLength(0);
  });

  it('rejects fields named like an object’s own properties as unknown, at the top and nested, never dropping them', async () => {
    const top = await send(validSend({ toString: '1' }), encoding);
    expect([top.status, top.body.message]).toEqual([422, 'body: Unrecognized key: "toString"']);
    const nested = await send(validSend({ content: template({ variables: { name: 'a', order: 'b' }, hasOwnProperty: '1' }) }), encoding);
    expect([nested.status, nested.body.message]).toEqual([422, 'body.content: Unrecognized key: "hasOwnProperty"']);
    // A variable the template does not name, whatever its name.
    const variable = await send(validSend({ content: template({ variables: { name: 'a', order: 'b', constructor: 'c' } }) }), encoding);
    expect([variable.status, variable.body.error, variable.body.message]).toEqual([422, 'validation_failed', `content.variables: not defined by template ${TEMPLATE_ID}: constructor`]);
  });

  it('rejects a templateId or tagId that is not a UUID', async () => {
    expect((await send(validSend({ content: template({ templateId: 'abc', variables: { name: 'a', order: 'b' } }) }), encoding)).body.message).toBe(
      'body.content.templateId: must be a UUID',
    );
    expect((await send(validSend({ tagIds: ['nope'] }), encoding)).body.message).toBe('body.tagIds.0: must be a UUID');
  });

  it('rejects an unknown channel or content type', async () => {
    expect((await send(validSend({ channel: 'sms' }), encoding)).body.message).toMatch(/^body\.channel: /);
    expect((await send(validSend({ content: { type: 'audio' } }), encoding)).body.message).toMatch(/^body\.content\.type: /);
  });

  it.each([
    ['whatsapp', { type: 'text', text: 'hi' }],
    ['whatsapp', { type: 'image', url: 'https://cdn.example.com/a.png' }],
    ['whatsapp', { type: 'document', url: 'https://cdn.example.com/a.pdf', filename: 'a.pdf' }],
    ['instagram', { type: 'template', templateId: TEMPLATE_ID, variables: { name: 'a', order: 'b' } }],
    ['instagram', { type: 'text', text: 'hi' }],
    ['instagram', { type: 'image', url: 'https://cdn.example.com/a.png' }],
    ['instagram', { type: 'document', url: 'https://cdn.example.com/a.pdf', filename: 'a.pdf' }],
  ])('answers %s + %o with 422 unsupported_channel_content and writes nothing', async (channel, content) => {
    const { status, body } = await send(validSend({ channel, to: 'user-1', content }), encoding);
    expect([status, body.error]).toEqual([422, 'unsupported_channel_content']);
    expect(ddb.commandCalls(TransactWriteCommand)).toHaveLength(0);
  });
});

describe('POST /v1/messages limits that only JSON can express', () => {
  it('allows 50 template variables and rejects 51', async () => {
    const fifty = await send(validSend({ content: template({ templateId: WIDE_TEMPLATE_ID, variables: variables(50) }) }));
    expect(fifty.status).toBe(202);
    const fiftyOne = await send(validSend({ content: template({ templateId: WIDE_TEMPLATE_ID, variables: variables(51) }) }));
    expect([fiftyOne.status, fiftyOne.body.message]).toEqual([422, 'body.content.variables: at most 50 variables']);
  });

  it('rejects a variable value that is not a string, naming the variable', async () => {
    const { status, body } = await send(validSend({ content: template({ variables: { name: 5, order: 'x' } }) }));
    expect(status).toBe(422);
    expect(body.message).toBe('body.content.variables.name: Invalid input: expected string, received number');
  });

  it('rejects trackingTags that is not an array', async () => {
    expect((await send(validSend({ trackingTags: 'promo' }))).body.message).toBe('body.trackingTags: Invalid input: expected array, received string');
  });
});

// Only JSON can carry a lone surrogate: a form's percent escapes decode as UTF-8, which has none.
describe('POST /v1/messages text, JSON body', () => {
  it('rejects a value or a field name that is not Unicode text (a lone surrogate, which JSON’s \\uD83D escape can carry), naming it in valid text', async () => {
    // JSON.stringify writes a lone surrogate as its escape, as a client's serializer may.
    const value = await send(validSend({ content: template({ variables: { name: 'Budi \ud83d', order: '1' } }) }), 'json');
    expect([value.status, value.body.error, value.body.message]).toEqual([422, 'validation_failed', 'body.content.variables.name: is not valid Unicode text (a lone UTF-16 surrogate)']);
    const key = await send(validSend({ content: template({ variables: { name: 'Budi', order: '1', ['x\udc00']: '1' } }) }), 'json');
    expect([key.status, key.body.message]).toEqual([422, 'body.content.variables.x\ufffd: is not valid Unicode text (a lone UTF-16 surrogate)']);
    // A whole pair is one character, and welcome.
    expect((await send(validSend({ content: template({ variables: { name: 'Budi 😀', order: '1' } }) }), 'json')).status).toBe(202);
  });
});

/**
 * WhatsApp refuses a template whose text parameter holds a new line or a tab, more than four spaces
 * in a row (error 132018, "Param text cannot have new-line/tab characters or more than 4 consecutive
 * spaces", as integrators report it), or nothing. The fixture's body `Halo {{name}}, …` makes `name`
 * a text parameter. Accepted, such a send cost the workspace's allowance and a queue message, then
 * failed at WhatsApp: the accepted-then-failed pattern decision 143 removed for typed values.
 */
describe('POST /v1/messages: a text parameter WhatsApp refuses', () => {
  it.each([
    ['a new line', 'Budi\nSantoso'],
    ['a carriage return', 'Budi\r\nSantoso'],
    ['a tab', 'Budi\tSantoso'],
    ['five spaces in a row', 'Budi     Santoso'],
    ['nothing in it', ''],
  ])('with %s is 422 validation_failed naming the variable, and writes nothing', async (_, name) => {
    const result = await send(validSend({ content: template({ variables: { name, order: 'A-1' } }) }));
    expect([result.status, result.body.error]).toEqual([422, 'validation_failed']);
    expect(result.body.message).toContain('content.variables: name: ');
    expect(ddb.commandCalls(TransactWriteCommand)).toHaveLength(0);
  });

  it('with four spaces in a row, and emoji, is sent', async () => {
    expect((await send(validSend({ content: template({ variables: { name: 'Budi    Santoso 🎉', order: 'A-1' } }) }))).status).toBe(202);
  });
});

describe('POST /v1/messages: a "to" the numbering plan has no such number for', () => {
  it.each(['0062 812 3456 7890', '000812345678'])('%s (read as Indonesian, a national number starting with 0) is 422 naming "to", and writes nothing', async (to) => {
    const result = await send(validSend({ to }));
    expect([result.status, result.body.error]).toEqual([422, 'validation_failed']);
    expect(result.body.message).toContain('to');
    expect(ddb.commandCalls(TransactWriteCommand)).toHaveLength(0);
  });
});

describe('POST /v1/messages: an optional variable whose placeholder is in the body, left out', () => {
  // It went to WhatsApp as an empty text parameter, which WhatsApp refuses: accepted 202, then failed.
  it('is 422 naming it, as an empty value is, and writes nothing', async () => {
    // WIDE_TEMPLATE_ID: body "{{v0}} {{v1}} … {{v49}}", every variable optional.
    const result = await send(validSend({ content: { type: 'template', templateId: WIDE_TEMPLATE_ID, variables: { v0: 'Budi' } } }));
    expect([result.status, result.body.error]).toEqual([422, 'validation_failed']);
    expect(result.body.message).toContain('content.variables: v1, v2, v3');
    expect(result.body.message).toContain('v49: must be given');
    expect(ddb.commandCalls(TransactWriteCommand)).toHaveLength(0);
  });
});

/**
 * API Gateway hands the function a repeated header's last value, so a request with two
 * Idempotency-Key headers would be keyed by whichever came last: a retry with the other (the one
 * the client logged) would send the message again. Refused before anything is written, as two
 * X-API-Key headers are.
 */
describe('POST /v1/messages with two Idempotency-Key headers', () => {
  const sendWith = (event: ReturnType<typeof routeEvent>) => handler(event, lambdaContext('sendMessage')).then((result) => parseResult(result));

  it.each([
    ['the same name twice', () => {
      const event = routeEvent('sendMessage', { apiKey: SEND_KEY, body: validSend(), headers: { 'Idempotency-Key': 'order-1-b' } });
      event.multiValueHeaders['Idempotency-Key'] = ['order-1-a', 'order-1-b'];
      return event;
    }],
    ['names that differ only in case', () => routeEvent('sendMessage', { apiKey: SEND_KEY, body: validSend(), headers: { 'Idempotency-Key': 'order-1-a', 'idempotency-key': 'order-1-b' } })],
  ])('is 422 naming the header, writing nothing (%s)', async (_case, request) => {
    const { status, body } = await sendWith(request());
    expect([status, body.error, body.message]).toEqual([422, 'validation_failed', 'headers.idempotency-key: send it once, not 2 times']);
    expect(ddb.commandCalls(TransactWriteCommand)).toHaveLength(0);
    expect(sqs.calls()).toHaveLength(0);
  });

  it('one header is a keyed send (202)', async () => {
    const { status } = await sendWith(routeEvent('sendMessage', { apiKey: SEND_KEY, body: validSend(), headers: { 'Idempotency-Key': 'order-1-a' } }));
    expect(status).toBe(202);
  });
});

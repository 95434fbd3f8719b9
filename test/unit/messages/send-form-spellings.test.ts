import { SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { handler } from '../../../lambdas/handlers/send-message';
import { resetContainerCaches } from '../../../lib/testing';
import { encodeBody } from '../../support/encodings';
import { lambdaContext, parseResult, routeEvent } from '../../support/events';
import { SEND_KEY, stubHealthySend, TEMPLATE_ID, validSend } from '../../support/send-fixtures';

/**
 * docs/api.md#form-encodings: a send may be JSON or either form encoding "with the same fields and
 * rules". These are written as HTTP clients write them: a Content-Type with a space before its
 * parameters (RFC 9110 §8.3.1 allows it), a list given once under its plain name (Python's
 * requests writes `trackingTags=promo` for `["promo"]`), and text holding brackets.
 */
const ddb = mockClient(DynamoDBDocumentClient);
const sqs = mockClient(SQSClient);

beforeEach(() => {
  ddb.reset();
  sqs.reset();
  resetContainerCaches();
  stubHealthySend(ddb, sqs);
});

const send = async (body: string, contentType: string) =>
  parseResult(await handler(routeEvent('sendMessage', { apiKey: SEND_KEY, body, headers: { 'Content-Type': contentType } }), lambdaContext('sendMessage')));
const base = `channel=whatsapp&to=081234567890&content[type]=template&content[templateId]=${TEMPLATE_ID}&content[variables][name]=Budi&content[variables][order]=A-1`;
const sendForm = (form: string) => send(form, 'application/x-www-form-urlencoded');
const storedDispatch = () => ddb.commandCalls(TransactWriteCommand)[0]!.args[0].input.TransactItems![0]!.Put!.Item!;

describe('a Content-Type with a space before its parameters', () => {
  it.each([
    ['JSON', JSON.stringify(validSend()), 'application/json ; charset=utf-8'],
    ['a form', encodeBody(validSend(), 'form').body as string, 'application/x-www-form-urlencoded ; charset=utf-8'],
    ['JSON, its type in capitals', JSON.stringify(validSend()), 'Application/JSON;charset=UTF-8'],
  ])('is read: %s', async (_case, body, contentType) => {
    const { status, body: answer } = await send(body, contentType);
    expect([status, answer.message]).toEqual([202, undefined]);
  });
});

describe('a form giving a list once under its plain name', () => {
  it('reads trackingTags=promo as the one tag, as trackingTags=promo&trackingTags=vip is two', async () => {
    expect((await sendForm(`${base}&trackingTags=promo`)).status).toBe(202);
    expect(storedDispatch().trackingTags).toEqual(['promo']);
    ddb.resetHistory();
    expect((await sendForm(`${base}&trackingTags=promo&trackingTags=vip`)).status).toBe(202);
    expect(storedDispatch().trackingTags).toEqual(['promo', 'vip']);
  });

  it('reads tagIds the same way', async () => {
    const tagId = '5d1e7a52-0c3b-4d0e-9a59-0a0a5a1e0001';
    expect((await sendForm(`${base}&tagIds=${tagId}`)).status).toBe(202);
    expect(storedDispatch().tagIds).toEqual([tagId]);
  });

  it('still refuses a JSON list given as a string: JSON says which it is', async () => {
    const { status, body } = await send(JSON.stringify(validSend({ trackingTags: 'promo' })), 'application/json');
    expect([status, body.message]).toEqual([422, 'body.trackingTags: Invalid input: expected array, received string']);
  });
});

describe('a form value holding brackets', () => {
  it('is text, not nesting: 17 opening braces in a contact name are accepted as in JSON', async () => {
    const contactName = '{'.repeat(17);
    expect((await send(JSON.stringify(validSend({ contactName })), 'application/json')).status).toBe(202);
    const { status, body } = await sendForm(`${base}&contactName=${contactName}`);
    expect([status, body.message]).toEqual([202, undefined]);
  });

  it('while a JSON body nesting past 16 levels is still refused before it is parsed', async () => {
    const { status, body } = await send(`{"a":${'['.repeat(17)}${']'.repeat(17)}}`, 'application/json');
    expect([status, body.message]).toEqual([422, 'body: nests deeper than 16 levels']);
  });
});

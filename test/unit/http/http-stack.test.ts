import { z } from 'zod';
import { GetCommand, DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { expand } from '../../../lambdas/http/middleware/form-decoding';
import { clearApiKeyCache } from '../../../lambdas/domain/api-keys/authenticate';
import { httpHandler } from '../../../lambdas/http/http-handler';
import { bodyReading } from '../../../lambdas/http/middleware/body-reading';
import { formBodyParser } from '../../../lambdas/http/middleware/form-body-parser';
import { ok } from '../../../lambdas/http/responses';
import { outerConflictDeadline } from '../../../lambdas/shared/conflict-deadline';
import { AppError, RateLimitedError } from '../../../lambdas/shared/errors';
import { routes } from '../../../lambdas/routes';
import { apiKeyItem } from '../../support/api-keys';
import { lambdaContext, parseResult, routeEvent } from '../../support/events';

// The stack under test is the real one; only the handler at its end is a probe.
const ddb = mockClient(DynamoDBDocumentClient);
const KEY = 'msk_test_stack0000000001';
const route = { scope: 'templates:read', body: ['json', 'form', 'multipart'] } as const;
const bodySchema = z.object({ name: z.string().max(5), tags: z.array(z.string()).optional(), nested: z.object({ a: z.string() }).optional() });
let behaviour: () => Promise<unknown> = async () => undefined;
const probe = httpHandler(route, { body: bodySchema }, async ({ body, principal, baseUrl }) => {
  await behaviour();
  return ok({ body, workspaceId: principal.workspaceId, baseUrl });
}, { bodyReading, formBodyParser });
const invoke = async (input: Parameters<typeof routeEvent>[1]) =>
  parseResult(await probe(routeEvent('listTemplates', { apiKey: KEY, ...input }), lambdaContext('probe')));

beforeEach(() => {
  ddb.reset();
  clearApiKeyCache();
  ddb.on(GetCommand).resolves({ Item: apiKeyItem(KEY, { workspaceId: 'ws-probe' }) });
  behaviour = async () => undefined;
});

describe('the shared HTTP middleware stack', () => {
  it('passes validated JSON and the principal to the handler, with the stage in the base URL', async () => {
    const { status, headers, body } = await invoke({ body: { name: 'Budi' }, requestId: 'req-1' });
    expect(status).toBe(200);
    expect(headers).toMatchObject({ 'content-type': 'application/json; charset=utf-8', 'x-request-id': 'req-1' });
    expect(body).toEqual({ body: { name: 'Budi' }, workspaceId: 'ws-probe', baseUrl: 'https://abc123.execute-api.ap-southeast-3.amazonaws.com/prod' });
  });

  it('reads bracket notation from an urlencoded form into the same shape as JSON', async () => {
    const form = 'name=Budi&tags%5B%5D=a&tags%5B%5D=b&nested%5Ba%5D=x';
    const { status, body } = await invoke({ body: form, headers: { 'Content-Type': 'application/x-www-form-urlencoded' } });
    expect(status).toBe(200);
    expect(body.body).toEqual({ name: 'Budi', tags: ['a', 'b'], nested: { a: 'x' } });
  });

  it('reads bracket notation from a multipart form (base64 as API Gateway delivers it)', async () => {
    const boundary = 'XyZ123';
    const part = (name: string, value: string) => `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;
    const multipart = `${part('name', 'Budi')}${part('tags[]', 'a')}${part('tags[]', 'b')}${part('nested[a]', 'x')}--${boundary}--\r\n`;
    const { status, body } = await invoke({ body: Buffer.from(multipart), headers: { 'Content-Type': `multipart/form-data; boundary=${boundary}` } });
    expect(status).toBe(200);
    expect(body.body).toEqual({ name: 'Budi', tags: ['a', 'b'], nested: { a: 'x' } });
  });

  it('reads [0], [1]… from 0 without a gap as an array, and other numbers as names, as JSON would have them', () => {
    const form = 'tags%5B0%5D=a&tags%5B1%5D=b&content%5Bvariables%5D%5B1%5D=x&content%5Bvariables%5D%5B2%5D=y&pushed%5B%5D=c&pushed%5B%5D=d';
    expect(JSON.parse(JSON.stringify(expand(form)))).toEqual({ tags: ['a', 'b'], content: { variables: { '1': 'x', '2': 'y' } }, pushed: ['c', 'd'] });
  });

  it.each([
    ['__proto__=x&name=Budi', 'The form body could not be read: "__proto__" is not a field name'],
    ['name=Budi&nested%5B__proto__%5D%5Ba%5D=x', 'The form body could not be read: "__proto__" is not a field name'],
    ['name=Bu%FFdi', 'The form body could not be read: a field value holds a percent escape that is not UTF-8 (such as %FF)'],
    ['na%E0me=Budi', 'The form body could not be read: a field name holds a percent escape that is not UTF-8 (such as %FF)'],
  ])('refuses the urlencoded form %s with 422 rather than dropping a field or keeping an escape as text', async (form, message) => {
    const { status, body } = await invoke({ body: form, headers: { 'Content-Type': 'application/x-www-form-urlencoded' } });
    expect([status, body.error, body.message]).toEqual([422, 'validation_failed', message]);
  });

  it('reads a form’s + as a space and its escapes as UTF-8', async () => {
    const { status, body } = await invoke({ body: 'name=B+%C3%A9', headers: { 'Content-Type': 'application/x-www-form-urlencoded' } });
    expect([status, body.body]).toEqual([200, { name: 'B é' }]);
  });

  it('refuses a multipart field whose bytes are not UTF-8 with 422, as the urlencoded form refuses %FF, and keeps a U+FFFD sent as such', async () => {
    const boundary = 'XyZ123';
    const part = (name: string, value: Buffer) => Buffer.concat([Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n`), value, Buffer.from('\r\n')]);
    const form = (value: Buffer) => Buffer.concat([part('name', value), Buffer.from(`--${boundary}--\r\n`)]);
    const headers = { 'Content-Type': `multipart/form-data; boundary=${boundary}` };

    const refused = await invoke({ body: form(Buffer.from([0x42, 0x75, 0xff, 0x64, 0x69])), headers });
    expect([refused.status, refused.body.error, refused.body.message]).toEqual([422, 'validation_failed', 'The multipart body could not be read: field "name" holds bytes that are not UTF-8']);

    const replacement = await invoke({ body: form(Buffer.from('Bu\uFFFDdi')), headers });
    expect([replacement.status, replacement.body.body]).toEqual([200, { name: 'Bu\uFFFDdi' }]);
  });

  it('rejects a multipart file upload with 422', async () => {
    const boundary = 'XyZ123';
    const multipart = `--${boundary}\r\nContent-Disposition: form-data; name="name"; filename="a.txt"\r\nContent-Type: text/plain\r\n\r\nhello\r\n--${boundary}--\r\n`;
    const { status, body } = await invoke({ body: Buffer.from(multipart), headers: { 'Content-Type': `multipart/form-data; boundary=${boundary}` } });
    expect(status).toBe(422);
    expect(body.error).toBe('validation_failed');
    expect(body.message).toMatch(/file uploads are not accepted/);
  });

  // Every wait for conflicts in the request gives up together, leaving the function time to answer 503.
  it('gives the handler a deadline for its waits on conflicts: the function’s time less a second', async () => {
    let deadline: number | undefined;
    behaviour = async () => void (deadline = outerConflictDeadline());
    const context = lambdaContext('probe', 10_000);
    const before = Date.now();
    await probe(routeEvent('listTemplates', { apiKey: KEY, body: { name: 'Budi' } }), context);
    expect(deadline! - before).toBeGreaterThan(8_000);
    expect(deadline! - before).toBeLessThanOrEqual(9_000);
  });

  it('answers malformed JSON with 422 validation_failed and a clear message', async () => {
    const { status, body } = await invoke({ body: '{"name": ', headers: { 'Content-Type': 'application/json' } });
    expect(status).toBe(422);
    expect(body).toEqual({ success: false, error: 'validation_failed', message: 'Invalid or malformed JSON was provided', requestId: expect.any(String) });
  });

  // Refused by Middy's parser (a prototype key), named as the form bodies name it.
  it.each([
    ['{"name":"Budi","__proto__":{"a":1}}', '__proto__'],
    ['{"nested":{"constructor":{"prototype":{}}}}', 'constructor'],
  ])('refuses the JSON body %s with 422 naming the key', async (json, key) => {
    const { status, body } = await invoke({ body: json, headers: { 'Content-Type': 'application/json' } });
    expect([status, body.error, body.message]).toEqual([422, 'validation_failed', `The JSON body could not be read: "${key}" is not a field name`]);
  });

  it('answers an unsupported Content-Type with 422 naming the accepted ones', async () => {
    const { status, body } = await invoke({ body: '<xml/>', headers: { 'Content-Type': 'text/xml' } });
    expect(status).toBe(422);
    expect(body.message).toBe('Content-Type must be application/json, application/x-www-form-urlencoded, multipart/form-data; got text/xml');
  });

  // JSON is UTF-8 (RFC 8259), and so are the forms' escapes: a body in another charset would reach
  // the customer with its accented letters as U+FFFD.
  it.each(['application/json; charset=iso-8859-1', 'application/json;charset="windows-1252"', 'application/x-www-form-urlencoded; charset=latin1'])(
    'refuses the Content-Type %s with 422 naming the charset',
    async (contentType) => {
      const { status, body } = await invoke({ body: '{"name":"Ren\u00e9e"}', headers: { 'Content-Type': contentType } });
      expect([status, body.error, body.message]).toEqual([422, 'validation_failed', expect.stringMatching(/^Content-Type charset must be utf-8; got (iso-8859-1|windows-1252|latin1)$/)]);
    },
  );

  // The parameters as RFC 9110 gives them (§5.6.6), not the first text that looks like a charset:
  // a second charset, or one quoted with a space, is not UTF-8 alone; and parameters that cannot be
  // read whole may hide one (the reading stopped there, and a Latin-1 body was read as UTF-8).
  it.each([
    ['application/json; charset=utf-8; charset=windows-1252', 'Content-Type charset must be utf-8; got windows-1252'],
    ['application/json; charset=" latin1"', 'Content-Type charset must be utf-8; got " latin1"'],
    ['application/json; foo=bar baz; charset=iso-8859-1', 'Content-Type parameters cannot be read from "baz; charset=iso-8859-1"'],
    ['application/json; foo=a"b; charset=iso-8859-1', 'Content-Type parameters cannot be read from "\\"b; charset=iso-8859-1"'],
    ['application/json; foo="x"y; charset=windows-1252', 'Content-Type parameters cannot be read from "y; charset=windows-1252"'],
    ['application/json; =x; charset=latin1', 'Content-Type parameters cannot be read from "=x; charset=latin1"'],
    ['application/json; foo="unterminated; charset=latin1', 'Content-Type parameters cannot be read from "\\"unterminated; charset=latin1"'],
  ])('refuses the Content-Type %s with 422', async (contentType, message) => {
    const { status, body } = await invoke({ body: '{"name":"Ren\u00e9e"}', headers: { 'Content-Type': contentType } });
    expect([status, body.error, body.message]).toEqual([422, 'validation_failed', message]);
  });

  it.each([
    'application/json; charset=utf-8',
    'application/json; charset="UTF-8"',
    'application/json; charset=us-ascii',
    'application/json; Charset = utf8',
    'application/json;',
    'application/json; charset=utf-8; ',
    'application/json; profile="https://example.com/p;charset=latin1"',
    // Some client stacks add a charset to a type that carries one: UTF-8 twice is UTF-8.
    'application/json;charset=utf-8;charset=utf-8',
  ])(
    'accepts the Content-Type %s',
    async (contentType) => {
      const { status, body } = await invoke({ body: '{"name":"Budi"}', headers: { 'Content-Type': contentType } });
      expect([status, body.body]).toEqual([200, { name: 'Budi' }]);
    },
  );

  it('answers a missing body with 422', async () => {
    const { status, body } = await invoke({ headers: { 'Content-Type': 'application/json' } });
    expect([status, body.message]).toEqual([422, 'A request body is required']);
  });

  it('answers a schema violation with 422 naming the field', async () => {
    const { status, body } = await invoke({ body: { name: 'far too long' } });
    expect(status).toBe(422);
    expect(body.message).toBe('body.name: Too big: expected string to have <=5 characters');
  });

  it('renders a typed error with its code, status and headers', async () => {
    behaviour = async () => {
      throw new RateLimitedError(7);
    };
    const { status, headers, body } = await invoke({ body: { name: 'a' } });
    expect(status).toBe(429);
    expect(headers['retry-after']).toBe('7');
    expect(Object.keys(body).sort()).toEqual(['error', 'message', 'requestId', 'success']);
    expect(body.error).toBe('rate_limited');
  });

  it('turns an unexpected error into a generic 500 without its message or stack', async () => {
    behaviour = async () => {
      throw new Error('connection string postgres://secret@db');
    };
    const { status, body } = await invoke({ body: { name: 'a' }, requestId: 'req-500' });
    expect(status).toBe(500);
    expect(body).toEqual({ success: false, error: 'internal_error', message: 'An unexpected error occurred; quote the requestId when reporting it', requestId: 'req-500' });
    expect(JSON.stringify(body)).not.toMatch(/secret|at Object|\.ts:/);
  });

  it('answers a handler that outlasts its function’s time 504 upstream_timeout (docs/api.md#errors), just before Lambda would cut it off', async () => {
    behaviour = () => new Promise(() => undefined);
    const event = routeEvent('listTemplates', { apiKey: KEY, body: { name: 'a' }, requestId: 'req-504' });
    const { status, body } = parseResult(await probe(event, lambdaContext('probe', 300)));
    expect(status).toBe(504);
    expect(body).toEqual({ success: false, error: 'upstream_timeout', message: 'The request did not finish within the function’s time; retry it (with the same Idempotency-Key, for a send)', requestId: 'req-504' });
  });

  it('answers a key lookup that hangs past the function’s time 503 service_unavailable, where Lambda’s timeout would leave API Gateway’s 502', async () => {
    ddb.on(GetCommand).callsFake(() => new Promise(() => undefined));
    const event = routeEvent('listTemplates', { apiKey: KEY, body: { name: 'a' }, requestId: 'req-503' });
    let waiting: NodeJS.Timeout | undefined;
    const cutOff = new Promise<'no answer before the function’s time'>((resolve) => (waiting = setTimeout(() => resolve('no answer before the function’s time'), 300)));
    const answer = await Promise.race([probe(event, lambdaContext('probe', 300)), cutOff]);
    clearTimeout(waiting);
    expect(typeof answer === 'string' ? answer : parseResult(answer)).toMatchObject({
      status: 503,
      headers: { 'retry-after': '1', 'x-request-id': 'req-503' },
      body: { success: false, error: 'service_unavailable', message: 'A service this API depends on is briefly unavailable; retry the request', requestId: 'req-503' },
    });
  });

  it('keeps AppError statuses in step with the error table', () => {
    expect(new AppError('duplicate_send', 'x').status).toBe(409);
    expect(new AppError('upstream_unavailable', 'x').status).toBe(502);
  });

  it('refuses, when the handler is built, a route whose needs its handler does not bring', () => {
    const handle = async () => ok({});
    // Each of these lives outside the shared stack so that only the routes needing it bundle it.
    expect(() => httpHandler(route, { body: bodySchema }, handle)).toThrow('This route reads a body: pass bodyReading to its handler');
    expect(() => httpHandler(route, { body: bodySchema }, handle, { bodyReading })).toThrow('This route accepts form bodies: pass formBodyParser to its handler');
    expect(() => httpHandler({ scope: 'messages:read', streaming: true }, {}, handle)).toThrow('This route streams its response: pass streamingResponse to its handler');
    expect(() => httpHandler({ scope: 'messages:read', signed: true }, {}, handle)).toThrow('This route is signed: pass signatureCheck to its handler');
  });

  it('is the stack the real routes use', () => {
    expect(routes.listTemplates.scope).toBe('templates:read');
  });
});

import { functionUrlEvent } from '../../../lib/testing';

/**
 * README: `functionUrlEvent(...)` is the event a public Lambda function URL sends, as Lambda
 * documents it (payload 2.0): https://docs.aws.amazon.com/lambda/latest/dg/urls-invocation.html
 * gives `"time": "12/Mar/2020:19:03:58 +0000"` beside `timeEpoch`.
 */
it('writes requestContext.time in the format Lambda documents, the same instant as timeEpoch', () => {
  const event = functionUrlEvent({ method: 'POST', path: '/webhooks/whatsapp', body: '{}' });
  expect(event.requestContext.time).toMatch(/^\d{2}\/[A-Z][a-z]{2}\/\d{4}:\d{2}:\d{2}:\d{2} \+0000$/);
  const [day, month, rest] = event.requestContext.time.split('/');
  const parsed = Date.parse(`${month} ${day} ${rest!.slice(0, 4)} ${rest!.slice(5, 13)} GMT`);
  expect(parsed).toBe(Math.floor(event.requestContext.timeEpoch / 1000) * 1000);
});

import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Context, LambdaFunctionURLEvent } from 'aws-lambda';
import type { Provider } from '../../lambdas/domain/providers/provider';
import { signWebhookBody } from '../../lambdas/domain/providers/whatsapp-webhook';
import { saveWorkspace } from '../../lambdas/domain/workspaces/workspace-repository';
import { functionUrlEvent } from '../../lib/local/function-url-event';
import { invokeRoute, lambdaContext, routeEvent, type RouteHandler } from '../support/events';
import { useTableAndQueues } from '../support/sqs';
import { inboundTextWebhook } from '../support/webhooks';

/**
 * A token pasted with a zero-width space is `token_unusable`, and what it stops is what carries it:
 * sends and the Graph API's template reads (docs/operations.md#whatsapp-token-refused). The webhook
 * needs only the app secret, the handshake only the verify token, the sandbox only the app secret to
 * sign its reports; all three are right, so WhatsApp's callbacks (statuses, a customer's messages, a
 * marketing stop) are still taken and answered 200, on the REST route and on the function URL.
 */
const env = useTableAndQueues();
let receive: RouteHandler;
let verify: RouteHandler;
let callbacks: (event: LambdaFunctionURLEvent, context: Context) => Promise<{ statusCode?: number; body?: string }>;
let sandbox: Provider;
const reports: { signature: string | undefined; body: string }[] = [];
let reportServer: Server;

beforeAll(async () => {
  reportServer = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      reports.push({ signature: request.headers['x-hub-signature-256'] as string | undefined, body: Buffer.concat(chunks).toString() });
      response.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => reportServer.listen(0, '127.0.0.1', resolve));
  process.env.SANDBOX_CALLBACK_URL = `http://127.0.0.1:${(reportServer.address() as AddressInfo).port}/webhooks/whatsapp`;
  process.env.QUEUE_URL = env.queues.queueUrl;
  // Configuration is read as a cold start reads it: set before the handlers are loaded.
  process.env.WHATSAPP_ACCESS_TOKEN = 'EAAGm0PX4ZCpsBAKZAZ\u200bBqZCZAZCZCz';
  ({ handler: receive } = (await import('../../lambdas/handlers/whatsapp-webhook')) as { handler: RouteHandler });
  ({ handler: verify } = (await import('../../lambdas/handlers/whatsapp-webhook-verify')) as { handler: RouteHandler });
  ({ handler: callbacks } = await import('../../lambdas/handlers/whatsapp-callbacks'));
  sandbox = (await import('../../lambdas/domain/providers/provider-for')).providerFor({ provider: 'sandbox' });
});
afterAll(async () => {
  delete process.env.WHATSAPP_ACCESS_TOKEN;
  delete process.env.SANDBOX_CALLBACK_URL;
  reportServer.closeAllConnections();
  await new Promise((resolve) => reportServer.close(resolve));
});

/** A customer's message to a workspace's own number, signed with the (right) app secret. */
async function signedInboundMessage() {
  const number = `1065${randomUUID().replace(/\D/g, '').slice(0, 10)}`;
  await saveWorkspace({ id: `ws-tok-${randomUUID().slice(0, 8)}`, name: 'tok', rupiahPerCredit: 150, settings: { whatsappPhoneNumberId: number } }, new Date(), env.table);
  const body = JSON.stringify(inboundTextWebhook({ phoneNumberId: number, from: '6281234567890', name: 'Sheena Nelson', id: `wamid.HBgLNjI4MTIzNDU2Nzg5MBUCABIYFDNB${randomUUID().slice(0, 8)}`, text: 'Does it come in another color?' }));
  return { body, headers: { 'Content-Type': 'application/json', 'X-Hub-Signature-256': signWebhookBody(body, process.env.WHATSAPP_APP_SECRET!) } };
}

it('answers a signed inbound message 200 while the access token is unusable', async () => {
  const answer = await invokeRoute('whatsappWebhook', receive, routeEvent('whatsappWebhook', await signedInboundMessage()));
  expect([answer.statusCode, answer.body]).toEqual([200, expect.anything()]);
});

it('answers the verify handshake with its challenge while the access token is unusable', async () => {
  const query = { 'hub.mode': 'subscribe', 'hub.verify_token': process.env.WHATSAPP_VERIFY_TOKEN!, 'hub.challenge': '1158201444' };
  const answer = await invokeRoute('whatsappWebhookVerify', verify, routeEvent('whatsappWebhookVerify', { query }));
  expect([answer.statusCode, answer.body]).toEqual([200, '1158201444']);
});

it('takes both on the function URL (webhookFrontDoor=functionUrl) too', async () => {
  const context = lambdaContext('whatsappCallbacks');
  const posted = await callbacks(functionUrlEvent({ method: 'POST', path: '/webhooks/whatsapp', ...(await signedInboundMessage()) }), context);
  const handshake = await callbacks(functionUrlEvent({ method: 'GET', path: '/webhooks/whatsapp', rawQueryString: `hub.mode=subscribe&hub.challenge=1158201444&hub.verify_token=${process.env.WHATSAPP_VERIFY_TOKEN!}` }), context);
  expect([posted.statusCode, handshake.statusCode, handshake.body]).toEqual([200, 200, '1158201444']);
});

it('lets the sandbox sign its reports with the app secret while the access token is unusable', async () => {
  const dispatchId = randomUUID();
  await sandbox.send({ dispatchId, to: '+6281234567890', templateName: 'order_update', language: 'id', bodyParameters: [] });
  await sandbox.settle();
  const report = reports.find((posted) => posted.body.includes(dispatchId));
  expect(report?.signature).toBe(signWebhookBody(report!.body, process.env.WHATSAPP_APP_SECRET!));
});

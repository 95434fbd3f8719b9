import { randomUUID } from 'node:crypto';
import { applyProviderReports } from '../../lambdas/domain/delivery/provider-reports';
import type { WebhookPayload } from '../../lambdas/domain/providers/whatsapp-webhook';
import { getMarketingOptOut } from '../../lambdas/domain/workspaces/marketing-opt-out';
import { optOutFromReply, removeMarketingOptOut } from '../../lambdas/domain/workspaces/marketing-opt-out-changes';
import { saveWorkspace } from '../../lambdas/domain/workspaces/workspace-repository';
import { runAdmin } from '../../lib/admin/cli';
import { useTableAndQueues } from '../support/sqs';
import { whatsAppEnvelope } from '../support/webhooks';

/**
 * An operator's lift of an opt-out is timed by a clock of ours, to the millisecond; a customer's
 * "Stop promotions" by Meta's, in whole seconds. The customer's stop after the lift must opt the
 * number out again, whichever clock is ahead (found by the time review).
 */
const env = useTableAndQueues();
const PHONE = '+6281234567890';

/** A "Stop promotions" quick-reply tap, as Meta's webhook reference documents a `button` message. */
const stopTap = (phoneNumberId: string, id: string, at: Date): WebhookPayload =>
  whatsAppEnvelope(
    'messages',
    {
      messaging_product: 'whatsapp',
      metadata: { display_phone_number: '15550783881', phone_number_id: phoneNumberId },
      contacts: [{ profile: { name: 'Budi' }, wa_id: '6281234567890' }],
      messages: [
        {
          context: { from: '15550783881', id: 'wamid.HBgLMTU1NTA3ODM4ODEVAgARGBI4QzE5OTc0RkU5RUQ4QTk2NjMA' },
          from: '6281234567890',
          id,
          timestamp: String(Math.floor(at.getTime() / 1000)),
          type: 'button',
          button: { payload: 'Stop promotions', text: 'Stop promotions' },
        },
      ],
    },
    '102290129340398',
  );

/** A workspace whose customer opted out by a tap the day before. */
async function optedOut(): Promise<string> {
  const ws = `ws-${randomUUID().slice(0, 8)}`;
  await saveWorkspace({ id: ws, name: ws, rupiahPerCredit: 150 }, new Date(), env.table);
  await optOutFromReply({ workspaceId: ws, phone: '6281234567890', type: 'button', text: 'Stop promotions', payload: 'Stop promotions', occurredAt: new Date(Date.now() - 86_400_000).toISOString(), providerMessageId: 'wamid.stop-1' }, env.table);
  return ws;
}

it('opts the number out again for a stop tapped after the lift in its whole second', async () => {
  const ws = await optedOut();
  const lift = new Date('2026-11-03T10:00:00.400Z');
  expect(await removeMarketingOptOut(ws, PHONE, env.table, lift)).toBe(true);
  // Tapped at 10:00:00.9; WhatsApp stamps it 10:00:00.
  await applyProviderReports(stopTap(`sandbox:${ws}`, 'wamid.stop-2', new Date('2026-11-03T10:00:00.000Z')), env.table);
  expect(await getMarketingOptOut(ws, PHONE, env.table)).toMatchObject({ source: 'button', optedOutAt: '2026-11-03T10:00:00.000Z' });
});

it('keeps the lift against a stop Meta delivers late from before the lift’s minute', async () => {
  const ws = await optedOut();
  expect(await removeMarketingOptOut(ws, PHONE, env.table, new Date('2026-11-03T10:00:00.400Z'))).toBe(true);
  await applyProviderReports(stopTap(`sandbox:${ws}`, 'wamid.stop-old', new Date('2026-11-03T09:58:00.000Z')), env.table);
  expect(await getMarketingOptOut(ws, PHONE, env.table)).toBeUndefined();
});

it('times `opt-outs remove` by AWS’s clock when the operator’s runs ahead of it', async () => {
  const ws = await optedOut();
  // The operator's laptop says five minutes later than AWS (here, DynamoDB Local's Date header),
  // and the SDK has not measured the difference yet.
  const config = env.table.db.config;
  config.systemClockOffset = 5 * 60_000;
  const status = await runAdmin(['opt-outs', 'remove', '--workspace', ws, '--phone', PHONE], {
    out: () => {},
    err: () => {},
    env: {},
    target: async () => ({ ...env.table, description: 'test table' }),
    now: () => new Date(Date.now() + 5 * 60_000),
  });
  expect(status).toBe(0);
  // The command's first answer told the SDK AWS's time: the five minutes are gone. Not to the
  // second: the Date header is in whole seconds, and a busy DynamoDB Local answers seconds late.
  expect(Math.abs(config.systemClockOffset ?? Number.NaN)).toBeLessThan(30_000);
  // A minute later the customer taps "Stop promotions" again.
  await applyProviderReports(stopTap(`sandbox:${ws}`, 'wamid.stop-3', new Date(Date.now() + 60_000)), env.table);
  expect(await getMarketingOptOut(ws, PHONE, env.table)).toMatchObject({ source: 'button' });
});

import { randomUUID } from 'node:crypto';
import { conversationIdFor } from '../../lambdas/domain/conversations/conversation-id';
import { findConversation } from '../../lambdas/domain/conversations/conversation-item';
import { signWebhookBody } from '../../lambdas/domain/providers/whatsapp-webhook';
import { toOutboxEvent } from '../../lambdas/domain/webhooks/outbox-item';
import { createWebhookEndpoint } from '../../lambdas/domain/webhooks/webhook-endpoint-repository';
import { getMarketingOptOut } from '../../lambdas/domain/workspaces/marketing-opt-out';
import { recordMarketingOptOut } from '../../lambdas/domain/workspaces/marketing-opt-out-changes';
import { saveWorkspace } from '../../lambdas/domain/workspaces/workspace-repository';
import { invokeRoute, routeEvent, type RouteHandler } from '../support/events';
import { useTableAndQueues } from '../support/sqs';

/**
 * What WhatsApp says about a customer's identity (the `system` messages webhook:
 * https://developers.facebook.com/documentation/business-messaging/whatsapp/webhooks/reference/messages/system/)
 * and what it does to their conversation and opt-out. Payloads as Meta's reference gives them: a
 * system message carries no contacts array; `user_changed_user_id` "reports only the BSUID change;
 * no phone number is included", the new BSUID in `system.user_id`; `user_changed_number` carries
 * the old number in `from` and the new one in `system.wa_id`.
 */

const env = useTableAndQueues();
let receive: RouteHandler;

beforeAll(async () => {
  process.env.QUEUE_URL = env.queues.queueUrl;
  ({ handler: receive } = (await import('../../lambdas/handlers/whatsapp-webhook')) as { handler: RouteHandler });
});

async function workspace() {
  const id = randomUUID().slice(0, 8);
  const ws = { id: `ws-idc-${id}`, number: `idc-${id}` };
  await saveWorkspace({ id: ws.id, name: ws.id, rupiahPerCredit: 150, settings: { whatsappPhoneNumberId: ws.number } }, new Date(), env.table);
  return ws;
}

/** One change of the webhook's `field` (`messages` unless told), from the workspace's number. */
async function post(number: string, value: Record<string, unknown>, field = 'messages') {
  const body = JSON.stringify({
    object: 'whatsapp_business_account',
    entry: [{ id: '102290129340398', changes: [{ field, value: { messaging_product: 'whatsapp', metadata: { display_phone_number: '6281100001111', phone_number_id: number }, ...value } }] }],
  });
  const headers = { 'Content-Type': 'application/json', 'X-Hub-Signature-256': signWebhookBody(body, process.env.WHATSAPP_APP_SECRET!) };
  const answer = await invokeRoute('whatsappWebhook', receive, routeEvent('whatsappWebhook', { body, headers }));
  expect(answer.statusCode).toBe(200);
}

/** What the workspace's `marketing_opt_out.updated` events said. */
const optOutEvents = async (workspaceId: string) =>
  (await env.table.scanAll())
    .filter((item) => item.entity === 'webhookOutbox' && item.workspaceId === workspaceId)
    .map(toOutboxEvent)
    .filter((event) => event.type === 'marketing_opt_out.updated')
    .map((event) => (JSON.parse(event.payload) as { data: unknown }).data);

const conversation = (workspaceId: string, contact: string) => findConversation(workspaceId, conversationIdFor(workspaceId, 'whatsapp', contact), env.table);

/** Meta's `user_changed_number` system message, from the number the customer left (webhook reference, messages: system). */
const notice = (from: string, to: string, id: string, timestamp = '1767225620') => ({
  messages: [{ from, id, timestamp, type: 'system', system: { body: `User Sari changed from ${from} to ${to}`, wa_id: to, type: 'user_changed_number' } }],
});

/** A "Stop promotions" quick-reply tap from a number (Meta's button messages webhook). */
const stopTap = (from: string, id: string, timestamp: string, name = 'Sari') => ({
  contacts: [{ profile: { name }, wa_id: from }],
  messages: [{ from, id, timestamp, type: 'button', button: { payload: 'Stop promotions', text: 'Stop promotions' } }],
});

/** WhatsApp's marketing resume for a number (Meta's `user_preferences` webhook). */
const resume = (from: string, timestamp: number) => ({
  contacts: [{ profile: { name: 'Sari' }, wa_id: from }],
  user_preferences: [{ wa_id: from, detail: 'User requested to resume marketing messages', category: 'marketing_messages', value: 'resume', timestamp }],
});

it('a user_changed_user_id notice tells which BSUID the customer’s next messages come from, as a number change tells the new number', async () => {
  const ws = await workspace();
  const old = 'ID.1111111111111111';
  const current = 'ID.2222222222222222';
  await post(ws.number, {
    contacts: [{ profile: { name: 'Sari', username: '@sari' }, user_id: old }],
    messages: [{ from_user_id: old, id: 'wamid.T1', timestamp: '1767225610', type: 'text', text: { body: 'Halo' } }],
  });
  await post(ws.number, {
    messages: [{ from_user_id: old, id: 'wamid.SYS', timestamp: '1767225620', type: 'system', system: { body: `User Sari changed from ${old} to ${current}`, user_id: current, type: 'user_changed_user_id' } }],
  });
  const { conversationHistory } = await import('../../lambdas/domain/conversations/read-conversations');
  const { items } = await conversationHistory(ws.id, conversationIdFor(ws.id, 'whatsapp', `user:${old}`), { limit: 10 }, env.table);
  expect(items[0]).toMatchObject({ id: 'wamid.SYS', type: 'system', payload: current });
});

it('a customer who opted out of marketing and then changed number keeps the opt-out on the new number', async () => {
  const ws = await workspace();
  await recordMarketingOptOut({ workspaceId: ws.id, phone: '+6281234560001', optedOutAt: '2025-12-30T00:00:00.000Z', source: 'button', providerMessageId: 'wamid.stop-tap' }, env.table);
  await post(ws.number, notice('6281234560001', '6281234560009', 'wamid.SYS-NUM'));
  expect(await getMarketingOptOut(ws.id, '+6281234560001', env.table)).toBeDefined();
  // The integration follows the customer to +6281234560009 (the notice's payload); marketing sends there are not refused.
  expect(await getMarketingOptOut(ws.id, '+6281234560009', env.table)).toBeDefined();
});

it('a late, retried message does not set the conversation’s contactUserId back to the BSUID WhatsApp has since replaced', async () => {
  const ws = await workspace();
  const old = 'ID.1111111111111111';
  const current = 'ID.2222222222222222';
  // The newer message first, from the customer's current BSUID…
  await post(ws.number, {
    contacts: [{ profile: { name: 'Sari' }, wa_id: '6281234560001', user_id: current }],
    messages: [{ from: '6281234560001', from_user_id: current, id: 'wamid.NEW', timestamp: '1767225700', type: 'text', text: { body: 'Baru' } }],
  });
  // …then Meta's retry of an older one, from before the BSUID changed.
  await post(ws.number, {
    contacts: [{ profile: { name: 'Sari' }, wa_id: '6281234560001', user_id: old }],
    messages: [{ from: '6281234560001', from_user_id: old, id: 'wamid.OLD', timestamp: '1767225600', type: 'text', text: { body: 'Lama' } }],
  });
  const stored = await conversation(ws.id, '+6281234560001');
  expect(stored).toMatchObject({ lastMessagePreview: 'Baru', messageCount: 2 });
  expect(stored!.contactUserId).toBe(current);
});

it('a customer known by number and BSUID who later writes with the BSUID alone (number hidden behind a username) stays in their conversation', async () => {
  const ws = await workspace();
  await createWebhookEndpoint({ workspaceId: ws.id, url: 'https://hooks.example.com/in', events: ['message.received'], description: null }, new Date(), env.table);
  const bsuid = 'ID.1111111111111111';
  // Meta's incoming message with both identifiers (business-scoped-user-ids reference)…
  await post(ws.number, {
    contacts: [{ profile: { name: 'Sari' }, wa_id: '6281234560001', user_id: bsuid }],
    messages: [{ from: '6281234560001', from_user_id: bsuid, id: 'wamid.BOTH', timestamp: '1767225600', type: 'text', text: { body: 'Pesanan saya?' } }],
  });
  expect(await conversation(ws.id, '+6281234560001')).toMatchObject({ contactUserId: bsuid, inboundCount: 1 });
  // …then, after the customer adopted a username, the same BSUID without the number (Meta's username-user example: no from, no wa_id).
  await post(ws.number, {
    contacts: [{ profile: { name: 'Sari', username: '@sari' }, user_id: bsuid }],
    messages: [{ from_user_id: bsuid, id: 'wamid.ONLY', timestamp: '1767225700', type: 'text', text: { body: 'Halo lagi' } }],
  });
  // One customer, one conversation: the BSUID is already on the number's, so no `user:` conversation opens.
  expect(await conversation(ws.id, `user:${bsuid}`)).toBeUndefined();
  expect(await conversation(ws.id, '+6281234560001')).toMatchObject({ inboundCount: 2, lastMessagePreview: 'Halo lagi' });
  // A reaction to it finds it there, and its event names that conversation and the number it has.
  await post(ws.number, {
    contacts: [{ profile: { name: 'Sari', username: '@sari' }, user_id: bsuid }],
    messages: [{ from_user_id: bsuid, id: 'wamid.REACT', timestamp: '1767225710', type: 'reaction', reaction: { message_id: 'wamid.ONLY', emoji: '👍' } }],
  });
  const conversationId = conversationIdFor(ws.id, 'whatsapp', '+6281234560001');
  const { conversationHistory } = await import('../../lambdas/domain/conversations/read-conversations');
  const { items } = await conversationHistory(ws.id, conversationId, { limit: 10 }, env.table);
  expect(items.map((message) => [message.id, message.reaction?.emoji ?? null])).toEqual([
    ['wamid.ONLY', '👍'],
    ['wamid.BOTH', null],
  ]);
  const received = (await env.table.scanAll()).filter((item) => item.entity === 'webhookOutbox' && item.workspaceId === ws.id).map(toOutboxEvent);
  const only = received.map((event) => (JSON.parse(event.payload) as { data: { conversationId: string; message: { id: string }; contact: unknown } }).data).find((data) => data.message.id === 'wamid.ONLY');
  expect(only).toMatchObject({ conversationId, contact: { phone: '+6281234560001', userId: bsuid, name: 'Sari' } });
});

// Found by the skeptic review of decision 222: the conversation of a BSUID-only message depends on
// the user-number item a later message writes, and Meta posts a webhook again (for days, out of
// order) when it did not get our 200: a repeat must change nothing.
it('Meta’s repeat of a BSUID-only message, after a later message gave the number with that BSUID, is not stored or announced a second time', async () => {
  const ws = await workspace();
  await createWebhookEndpoint({ workspaceId: ws.id, url: 'https://hooks.example.com/in', events: ['message.received'], description: null }, new Date(), env.table);
  const bsuid = 'ID.3333333333333333';
  const first = {
    contacts: [{ profile: { name: 'Sari', username: '@sari' }, user_id: bsuid }],
    messages: [{ from_user_id: bsuid, id: 'wamid.FIRST', timestamp: '1767225600', type: 'text', text: { body: 'Halo' } }],
  };
  await post(ws.number, first);
  await post(ws.number, {
    contacts: [{ profile: { name: 'Sari' }, wa_id: '6281234560001', user_id: bsuid }],
    messages: [{ from: '6281234560001', from_user_id: bsuid, id: 'wamid.BOTH', timestamp: '1767225700', type: 'text', text: { body: 'Pesanan saya?' } }],
  });
  await post(ws.number, first);

  const announced = (await env.table.scanAll())
    .filter((item) => item.entity === 'webhookOutbox' && item.workspaceId === ws.id)
    .map((item) => (JSON.parse(toOutboxEvent(item).payload) as { data: { message: { id: string }; conversationId: string } }).data)
    .filter((data) => data.message.id === 'wamid.FIRST');
  expect(announced.map((data) => data.conversationId)).toEqual([conversationIdFor(ws.id, 'whatsapp', `user:${bsuid}`)]);
  expect(await conversation(ws.id, '+6281234560001')).toMatchObject({ inboundCount: 1 });
  expect(await conversation(ws.id, `user:${bsuid}`)).toMatchObject({ inboundCount: 1 });
});

// Left by the inbound review: sends go to numbers, so a tap named by BSUID alone opted nothing out.
it('a "Stop promotions" tap from a customer named by BSUID alone opts out the number an earlier message gave with it', async () => {
  const ws = await workspace();
  const bsuid = 'ID.4444444444444444';
  await post(ws.number, {
    contacts: [{ profile: { name: 'Sari' }, wa_id: '6281234560004', user_id: bsuid }],
    messages: [{ from: '6281234560004', from_user_id: bsuid, id: 'wamid.BOTH-4', timestamp: '1767225600', type: 'text', text: { body: 'Halo' } }],
  });
  // A quick-reply tap as Meta's reference documents a `button` message, from a username user.
  await post(ws.number, {
    contacts: [{ profile: { name: 'Sari', username: '@sari' }, user_id: bsuid }],
    messages: [{ from_user_id: bsuid, id: 'wamid.STOP-4', timestamp: '1767225700', type: 'button', button: { payload: 'Stop promotions', text: 'Stop promotions' } }],
  });
  expect(await getMarketingOptOut(ws.id, '+6281234560004', env.table)).toMatchObject({ source: 'button', providerMessageId: 'wamid.STOP-4' });
});

// Left by the suspects' review: decisions 217 and 222 together. A customer known by number and BSUID
// who opted out, then hid their number behind a username, then changed number: WhatsApp names them
// in the notice as in their other messages, by `from_user_id` without `from` (Meta's
// business-scoped user IDs reference), the new BSUID in `system.user_id` and the previous one in
// `system.previous_user_id` (system messages reference and its changelog of Aug 11, 2026).
it('a number change notified by BSUID alone carries the opt-out the customer made on their old number to the new one', async () => {
  const ws = await workspace();
  const old = 'ID.5555555555555555';
  const current = 'ID.6666666666666666';
  // A "Stop promotions" tap with both identifiers (a quick-reply `button` message as Meta documents it).
  await post(ws.number, {
    contacts: [{ profile: { name: 'Sari' }, wa_id: '6281234560005', user_id: old }],
    messages: [{ from: '6281234560005', from_user_id: old, id: 'wamid.STOP-5', timestamp: '1767225600', type: 'button', button: { payload: 'Stop promotions', text: 'Stop promotions' } }],
  });
  expect(await getMarketingOptOut(ws.id, '+6281234560005', env.table)).toBeDefined();
  await post(ws.number, {
    messages: [
      {
        from_user_id: old,
        id: 'wamid.SYS-BSN',
        timestamp: '1767225700',
        type: 'system',
        system: { body: 'User Sari changed from 6281234560005 to 6281234560006', wa_id: '6281234560006', type: 'user_changed_number', user_id: current, previous_user_id: old },
      },
    ],
  });
  // The integration follows the customer to +6281234560006 (the notice's payload); their opt-out follows too.
  expect(await getMarketingOptOut(ws.id, '+6281234560006', env.table)).toMatchObject({ source: 'button', providerMessageId: 'wamid.STOP-5' });
});

// Left by the suspects' review: decision 222 wrote no user-number item for the new BSUID.
it('after a user_changed_user_id notice, the customer writing by the new BSUID alone stays in their number’s conversation, and their "Stop promotions" tap opts that number out', async () => {
  const ws = await workspace();
  const old = 'ID.7777777777777777';
  const current = 'ID.8888888888888888';
  await post(ws.number, {
    contacts: [{ profile: { name: 'Sari' }, wa_id: '6281234560007', user_id: old }],
    messages: [{ from: '6281234560007', from_user_id: old, id: 'wamid.BOTH-7', timestamp: '1767225600', type: 'text', text: { body: 'Halo' } }],
  });
  await post(ws.number, {
    messages: [{ from_user_id: old, id: 'wamid.SYS-7', timestamp: '1767225620', type: 'system', system: { body: `User Sari changed from ${old} to ${current}`, user_id: current, previous_user_id: old, type: 'user_changed_user_id' } }],
  });
  // A username user's quick-reply tap, by the BSUID WhatsApp now gives them.
  await post(ws.number, {
    contacts: [{ profile: { name: 'Sari', username: '@sari' }, user_id: current }],
    messages: [{ from_user_id: current, id: 'wamid.STOP-7', timestamp: '1767225700', type: 'button', button: { payload: 'Stop promotions', text: 'Stop promotions' } }],
  });
  expect(await conversation(ws.id, `user:${current}`)).toBeUndefined();
  expect(await conversation(ws.id, '+6281234560007')).toMatchObject({ inboundCount: 2 });
  expect(await getMarketingOptOut(ws.id, '+6281234560007', env.table)).toMatchObject({ source: 'button', providerMessageId: 'wamid.STOP-7' });
});

// Left by the skeptic's review: "A phone number change also regenerates the user's business-scoped
// user ID" (Meta's changelog, Aug 11, 2026), so the number-change notice is the one place that
// links the new BSUID to the new number.
it('a customer who changed number and then writes with the new BSUID alone lands in the new number’s conversation, and their stop tap opts it out', async () => {
  const ws = await workspace();
  const oldId = 'ID.5555555555555555';
  const newId = 'ID.6666666666666666';
  await post(ws.number, {
    contacts: [{ profile: { name: 'Sari' }, wa_id: '6281234565001', user_id: oldId }],
    messages: [{ from: '6281234565001', from_user_id: oldId, id: 'wamid.SKB-1', timestamp: '1767225600', type: 'text', text: { body: 'Halo' } }],
  });
  await post(ws.number, {
    messages: [
      {
        from: '6281234565001',
        id: 'wamid.SKB-SYS',
        timestamp: '1767225620',
        type: 'system',
        system: { body: 'User Sari changed from 6281234565001 to 6281234565009', wa_id: '6281234565009', user_id: newId, previous_user_id: oldId, type: 'user_changed_number' },
      },
    ],
  });
  // The customer, behind a username, writes from the new number: the new BSUID alone.
  await post(ws.number, {
    contacts: [{ profile: { name: 'Sari', username: '@sari' }, user_id: newId }],
    messages: [{ from_user_id: newId, id: 'wamid.SKB-2', timestamp: '1767225700', type: 'button', button: { payload: 'Stop promotions', text: 'Stop promotions' } }],
  });
  expect(await conversation(ws.id, `user:${newId}`)).toBeUndefined();
  expect(await conversation(ws.id, '+6281234565009')).toMatchObject({ inboundCount: 1 });
  expect(await getMarketingOptOut(ws.id, '+6281234565009', env.table)).toBeDefined();
});

// Two reviewers' suspicion: Meta's references do not say which BSUID `from_user_id` names on a
// number change (the syntax shows `from` alone); named the new one beside the old number, the
// sender's link must not send the new BSUID's messages to the number the customer left.
it('a number-change notice whose sender names the new BSUID beside the old number links that BSUID to the new number', async () => {
  const ws = await workspace();
  const oldId = 'ID.5555555555555555';
  const newId = 'ID.6666666666666666';
  await post(ws.number, {
    messages: [
      {
        from: '6281234565101',
        from_user_id: newId,
        id: 'wamid.SKN-SYS',
        timestamp: '1767225620',
        type: 'system',
        system: { body: 'User Sari changed from 6281234565101 to 6281234565109', wa_id: '6281234565109', user_id: newId, previous_user_id: oldId, type: 'user_changed_number' },
      },
    ],
  });
  await post(ws.number, {
    contacts: [{ profile: { name: 'Sari', username: '@sari' }, user_id: newId }],
    messages: [{ from_user_id: newId, id: 'wamid.SKN-2', timestamp: '1767225700', type: 'text', text: { body: 'Halo' } }],
  });
  expect(await conversation(ws.id, '+6281234565109')).toMatchObject({ inboundCount: 1, lastMessagePreview: 'Halo' });
  expect(await conversation(ws.id, '+6281234565101')).toMatchObject({ inboundCount: 0 });
});

// Left by the skeptic's review: Meta delivers webhooks out of order and re-delivers one it got no
// 200 for, so the customer's word on the old number may arrive after the notice.
it('a "Stop promotions" tap made before a number change, whose POST Meta delivers after the notice’s, opts out the new number too', async () => {
  const ws = await workspace();
  // The notice (made at :20) reaches us first…
  await post(ws.number, notice('6281234567001', '6281234567009', 'wamid.SKL-SYS'));
  // …then Meta's retry of the tap the customer made on the old number at :10.
  await post(ws.number, stopTap('6281234567001', 'wamid.SKL-STOP', '1767225610'));
  expect(await getMarketingOptOut(ws.id, '+6281234567001', env.table)).toBeDefined();
  expect(await getMarketingOptOut(ws.id, '+6281234567009', env.table)).toMatchObject({ source: 'button', providerMessageId: 'wamid.SKL-STOP', optedOutAt: '2026-01-01T00:00:10.000Z' });
});

it('a "Stop promotions" tap on the old number made after the number change stays that number’s: it is its next holder’s word', async () => {
  const ws = await workspace();
  await post(ws.number, notice('6281234567101', '6281234567109', 'wamid.SKA-SYS'));
  await post(ws.number, stopTap('6281234567101', 'wamid.SKA-STOP', '1767225630', 'Budi'));
  expect(await getMarketingOptOut(ws.id, '+6281234567101', env.table)).toBeDefined();
  expect(await getMarketingOptOut(ws.id, '+6281234567109', env.table)).toBeUndefined();
});

// Left by the second skeptic's review: a resume is the customer's word too, and Meta may deliver it after the notice.
it('a resume made before a number change, whose POST Meta delivers after the notice’s, lifts the opt-out the notice carried to the new number', async () => {
  const ws = await workspace();
  await createWebhookEndpoint({ workspaceId: ws.id, url: 'https://hooks.example.com/in', events: ['marketing_opt_out.updated'], description: null }, new Date(), env.table);
  // :00 the customer taps "Stop promotions" on the old number.
  await post(ws.number, stopTap('6281234567201', 'wamid.LR-STOP', '1767225600'));
  // :20 the number change notice reaches us, carrying the opt-out…
  await post(ws.number, notice('6281234567201', '6281234567209', 'wamid.LR-SYS'));
  expect(await getMarketingOptOut(ws.id, '+6281234567209', env.table)).toBeDefined();
  // …then Meta's delivery of the resume the customer made in WhatsApp at :10, on the old number, before moving
  // (Meta's user_preferences webhook reference).
  await post(ws.number, resume('6281234567201', 1767225610), 'user_preferences');
  expect(await getMarketingOptOut(ws.id, '+6281234567201', env.table)).toBeUndefined();
  // The customer's last word before the move was "resume": their new number is not opted out.
  expect(await getMarketingOptOut(ws.id, '+6281234567209', env.table)).toBeUndefined();
  // The integration, which keeps its own suppression list, hears of the lift on each number.
  const events = await optOutEvents(ws.id);
  expect(events).toHaveLength(4);
  expect(events).toEqual(
    expect.arrayContaining([
      { phone: '+6281234567201', optedOut: true, by: 'button', at: '2026-01-01T00:00:00.000Z' },
      { phone: '+6281234567209', optedOut: true, by: 'button', at: '2026-01-01T00:00:00.000Z' },
      { phone: '+6281234567201', optedOut: false, by: 'whatsapp', at: '2026-01-01T00:00:10.000Z' },
      { phone: '+6281234567209', optedOut: false, by: 'whatsapp', at: '2026-01-01T00:00:10.000Z' },
    ]),
  );
  // Meta's retry of the notice carries nothing again, nor does its retry of the :00 tap: the resume guards both numbers.
  await post(ws.number, notice('6281234567201', '6281234567209', 'wamid.LR-SYS'));
  await post(ws.number, stopTap('6281234567201', 'wamid.LR-STOP', '1767225600'));
  expect(await getMarketingOptOut(ws.id, '+6281234567201', env.table)).toBeUndefined();
  expect(await getMarketingOptOut(ws.id, '+6281234567209', env.table)).toBeUndefined();
});

it('a resume followed to the new number lifts nothing the customer said there after the move; a resume before the notice leaves nothing to carry', async () => {
  const ws = await workspace();
  // The notice (:20) first; the customer taps "Stop promotions" on the new number at :30; then Meta
  // delivers the old number's stop (:00) and the resume (:10) made before the move.
  await post(ws.number, notice('6281234567301', '6281234567309', 'wamid.LRA-SYS'));
  await post(ws.number, stopTap('6281234567309', 'wamid.LRA-NEW', '1767225630'));
  await post(ws.number, stopTap('6281234567301', 'wamid.LRA-OLD', '1767225600'));
  await post(ws.number, resume('6281234567301', 1767225610), 'user_preferences');
  expect(await getMarketingOptOut(ws.id, '+6281234567301', env.table)).toBeUndefined();
  expect(await getMarketingOptOut(ws.id, '+6281234567309', env.table)).toMatchObject({ providerMessageId: 'wamid.LRA-NEW', optedOutAt: '2026-01-01T00:00:30.000Z' });

  // The opposite order: the stop (:00) and the resume (:10) before the notice (:20): the old number
  // holds no opt-out when the notice comes, so none is carried.
  await post(ws.number, stopTap('6281234567401', 'wamid.LRB-STOP', '1767225600'));
  await post(ws.number, resume('6281234567401', 1767225610), 'user_preferences');
  await post(ws.number, notice('6281234567401', '6281234567409', 'wamid.LRB-SYS'));
  expect(await getMarketingOptOut(ws.id, '+6281234567401', env.table)).toBeUndefined();
  expect(await getMarketingOptOut(ws.id, '+6281234567409', env.table)).toBeUndefined();
});

it('a stop made again after a resume, before a number change, follows the customer: the resume Meta delivers last lifts neither number (decision 234)', async () => {
  const ws = await workspace();
  // :00 the customer taps "Stop promotions" on the old number, :10 resumes, :15 taps it again; :20 moves.
  // Meta delivers the taps, then the notice, and the resume last.
  await post(ws.number, stopTap('6281234567501', 'wamid.AG-STOP', '1767225600'));
  await post(ws.number, stopTap('6281234567501', 'wamid.AG-AGAIN', '1767225615'));
  await post(ws.number, notice('6281234567501', '6281234567509', 'wamid.AG-SYS'));
  await post(ws.number, resume('6281234567501', 1767225610), 'user_preferences');
  // Each keeps the first record; the later tap's time is what the resume was held to.
  const kept = { providerMessageId: 'wamid.AG-STOP', optedOutAt: '2026-01-01T00:00:00.000Z', lastStoppedAt: '2026-01-01T00:00:15.000Z' };
  expect(await getMarketingOptOut(ws.id, '+6281234567501', env.table)).toMatchObject(kept);
  expect(await getMarketingOptOut(ws.id, '+6281234567509', env.table)).toMatchObject(kept);

  // The :15 tap delivered after the notice follows the customer to the new number just the same.
  await post(ws.number, stopTap('6281234567601', 'wamid.AGL-STOP', '1767225600'));
  await post(ws.number, notice('6281234567601', '6281234567609', 'wamid.AGL-SYS'));
  await post(ws.number, stopTap('6281234567601', 'wamid.AGL-AGAIN', '1767225615'));
  await post(ws.number, resume('6281234567601', 1767225610), 'user_preferences');
  expect(await getMarketingOptOut(ws.id, '+6281234567609', env.table)).toMatchObject({ providerMessageId: 'wamid.AGL-STOP', lastStoppedAt: '2026-01-01T00:00:15.000Z' });

  // A tap on the old number after the move (:30) is its next holder's: the notice's carry leaves it
  // behind, so the customer's resume from before the move lifts the new number's opt-out, not the old one's.
  await post(ws.number, stopTap('6281234567701', 'wamid.AGN-STOP', '1767225600'));
  await post(ws.number, stopTap('6281234567701', 'wamid.AGN-HOLDER', '1767225630'));
  await post(ws.number, notice('6281234567701', '6281234567709', 'wamid.AGN-SYS'));
  await post(ws.number, resume('6281234567701', 1767225610), 'user_preferences');
  expect(await getMarketingOptOut(ws.id, '+6281234567701', env.table)).toMatchObject({ lastStoppedAt: '2026-01-01T00:00:30.000Z' });
  expect(await getMarketingOptOut(ws.id, '+6281234567709', env.table)).toBeUndefined();
});

/**
 * Values the operations' examples share (lambdas/handlers/*.openapi.ts): the demo seed's template
 * and the ids the contract's examples use. Documentation only: no handler imports this.
 */
export const DEMO_TEMPLATE_ID = '7b0c5c3e-0000-4000-8000-000000000001';
export const DEMO_VERSION_ID = '7b0c5c3e-0000-4000-8000-0000000000a1';
export const DISPATCH_ID = '3f1c2a9e-5b7d-4c1e-9a2b-6d8e0f1a2b3c';
export const CONVERSATION_ID = 'c0a8e2f4-1b3d-4e5f-8a7b-9c0d1e2f3a4b';
export const API_KEY_ID = '0f9e8d7c-6b5a-4c3d-8e2f-1a0b9c8d7e6f';

export const demoTemplate = {
  id: DEMO_TEMPLATE_ID,
  displayName: 'Order shipped',
  status: 'APPROVED',
  versions: [
    {
      id: DEMO_VERSION_ID,
      version: 1,
      status: 'READY',
      variableDefinitions: [
        { name: 'name', type: 'text', required: true },
        { name: 'order', type: 'text', required: true },
      ],
      customerPreview: 'Halo {{name}}, pesanan {{order}} sudah dikirim.',
      creditCostPerSend: 2,
      createdAt: '2026-01-05T03:00:00Z',
      readyAt: '2026-01-05T04:00:00Z',
    },
  ],
};

export const reportHead = { period: { startDate: '2026-11-01', endDate: '2026-11-30', timezone: 'Asia/Jakarta' }, rupiahPerCredit: 150 };

export const conversation = {
  id: CONVERSATION_ID,
  channel: 'whatsapp',
  contactPhone: '+6281234567890',
  contactUserId: 'ID.13491208655302741918',
  contactName: 'Budi',
  lastMessageAt: '2026-11-03T02:15:04.420Z',
  lastMessagePreview: 'Terima kasih!',
  lastMessageDirection: 'inbound',
  messageCount: 2,
  inboundCount: 1,
  outboundCount: 1,
  unreadCount: 1,
  createdAt: '2026-11-03T02:14:00.000Z',
  updatedAt: '2026-11-03T02:15:04.420Z',
};

export const WEBHOOK_ENDPOINT_ID = 'whe_5f0d3b8e2a914c7fb1e6d2a0c49e7b13';

export const webhookEndpoint = {
  id: WEBHOOK_ENDPOINT_ID,
  url: 'https://crm.example.com/hooks/messaging',
  events: ['message.status.updated', 'message.received'],
  description: 'CRM sync',
  status: 'enabled',
  disabledReason: null,
  createdAt: '2026-11-03T02:10:00.000Z',
  updatedAt: '2026-11-03T02:10:00.000Z',
};

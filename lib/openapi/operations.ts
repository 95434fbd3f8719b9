import type { z } from 'zod';
import { webhookPayloadSchema } from '../../lambdas/domain/providers/whatsapp-webhook';
import type { RouteId } from '../../lambdas/routes';
import type { ErrorCode } from '../../lambdas/shared/errors';

export type OperationTag = 'Health' | 'Messages' | 'Reports' | 'Templates' | 'Conversations' | 'Webhooks';

/**
 * What the document says about a route beyond its schemas: prose, the errors its domain raises,
 * and examples from docs/api.md and the README. Errors every route of its kind
 * can return (authentication, validation, limits, the gateway's own) are derived, not listed.
 */
export interface OperationDoc {
  tag: OperationTag;
  description?: string;
  /** The success status, when not 200. */
  successStatus?: 202;
  /** Errors this operation's handler or domain raises itself. */
  errors?: readonly ErrorCode[];
  /** A body the handler reads itself rather than through the stack (the webhook, after its signature check). */
  body?: z.ZodType;
  examples?: {
    request?: Record<string, unknown>;
    /** The success body. */
    response?: unknown;
  };
}

const DEMO_TEMPLATE_ID = '7b0c5c3e-0000-4000-8000-000000000001';
const DEMO_VERSION_ID = '7b0c5c3e-0000-4000-8000-0000000000a1';
const DISPATCH_ID = '3f1c2a9e-5b7d-4c1e-9a2b-6d8e0f1a2b3c';
const CONVERSATION_ID = 'c0a8e2f4-1b3d-4e5f-8a7b-9c0d1e2f3a4b';
const API_KEY_ID = '0f9e8d7c-6b5a-4c3d-8e2f-1a0b9c8d7e6f';

const demoTemplate = {
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

const reportHead = { period: { startDate: '2026-11-01', endDate: '2026-11-30', timezone: 'Asia/Jakarta' }, rupiahPerCredit: 150 };

const conversation = {
  id: CONVERSATION_ID,
  channel: 'whatsapp',
  contactPhone: '+6281234567890',
  contactName: 'Budi',
  lastMessageAt: '2026-11-03T02:15:04.120Z',
  lastMessagePreview: 'Terima kasih!',
  lastMessageDirection: 'inbound',
  messageCount: 2,
  inboundCount: 1,
  outboundCount: 1,
  unreadCount: 1,
  createdAt: '2026-11-03T02:14:00.000Z',
  updatedAt: '2026-11-03T02:15:04.120Z',
};

export const operations: Record<RouteId, OperationDoc> = {
  health: {
    tag: 'Health',
    description: 'Answers once the service can take requests. No API key.',
    examples: { response: { success: true, data: { status: 'ok', service: 'messaging-api-external' } } },
  },
  listTemplates: {
    tag: 'Templates',
    description: 'The workspace’s APPROVED templates, each with its versions.',
    examples: { response: { items: [demoTemplate] } },
  },
  getTemplate: {
    tag: 'Templates',
    description: 'An unknown template and another workspace’s template are the same 404.',
    errors: ['not_found'],
    examples: { response: demoTemplate },
  },
  previewTemplate: {
    tag: 'Templates',
    description:
      'Renders a template version with variable values. The contract names the path segment `templateVersionId`; it holds a template version id ' +
      '(API Gateway allows one variable name per path level, and `GET /v1/message-templates/{templateId}` holds this level).',
    errors: ['not_found', 'missing_variables'],
    examples: {
      request: { variables: [{ name: 'name', value: 'Budi' }, { name: 'order', value: 'A-1042' }] },
      response: { templateVersionId: DEMO_VERSION_ID, preview: 'Halo Budi, pesanan A-1042 sudah dikirim.' },
    },
  },
  sendMessage: {
    tag: 'Messages',
    description:
      'Queues a message and answers at once; delivery happens afterwards. Only `channel=whatsapp` with `content.type=template` is delivered: ' +
      'the other variants are valid in shape and rejected with 422 `unsupported_channel_content`. Form bodies use bracket notation ' +
      '(`content[type]=template&content[variables][name]=Budi&trackingTags[]=promo`). With an `Idempotency-Key`, a repeat of the same request ' +
      'within 24 h returns the original 202 body with `Idempotent-Replayed: true`; the same key with another body is 409.',
    successStatus: 202,
    errors: ['idempotency_conflict', 'duplicate_send', 'unsupported_channel_content', 'template_not_found', 'template_not_ready', 'missing_variables', 'rate_limited', 'upstream_unavailable'],
    examples: {
      request: {
        channel: 'whatsapp',
        to: '081234567890',
        contactName: 'Budi',
        content: { type: 'template', templateId: DEMO_TEMPLATE_ID, variables: { name: 'Budi', order: 'A-1042' } },
        trackingTags: ['november-promo'],
      },
      response: { dispatchId: DISPATCH_ID, status: 'queued', statusUrl: `http://127.0.0.1:3000/v1/messages/${DISPATCH_ID}` },
    },
  },
  deliveryStatus: {
    tag: 'Messages',
    description: 'Delivery events per phone number in a WIB period, oldest first; each phone comes back as it was given.',
    examples: {
      request: { phones: ['081234567890'], startDate: '2026-11-01', endDate: '2026-11-30' },
      response: {
        items: [
          {
            phone: '081234567890',
            events: [
              { dispatchId: DISPATCH_ID, status: 'ACCEPTED', occurredAt: '2026-11-03T02:14:00.412Z' },
              { dispatchId: DISPATCH_ID, status: 'DELIVERED', occurredAt: '2026-11-03T02:14:01.000Z' },
            ],
          },
        ],
      },
    },
  },
  trackingTags: {
    tag: 'Reports',
    description: 'Tracking tags used by SENT or DELIVERED dispatches in a WIB period, most used first. At most 366 days.',
    examples: { response: { items: [{ trackingTag: 'november-promo', dispatchCount: 1 }], pagination: { page: 1, limit: 50, totalItems: 1, totalPages: 1 } } },
  },
  trackingSummary: {
    tag: 'Reports',
    description: 'Per requested tag (repeat `trackingTags`), SENT or DELIVERED dispatches, credits and rupiah, and the same per template. `page` and `limit` page the tag rows.',
    examples: {
      response: {
        ...reportHead,
        items: [
          {
            trackingTag: 'november-promo',
            dispatchCount: 1,
            credits: 2,
            amountRupiah: 300,
            templates: [{ templateId: DEMO_TEMPLATE_ID, templateName: 'Order shipped', dispatchCount: 1, credits: 2, amountRupiah: 300 }],
          },
          { trackingTag: 'vip', dispatchCount: 0, credits: 0, amountRupiah: 0, templates: [] },
        ],
      },
    },
  },
  trackingDispatches: {
    tag: 'Reports',
    description:
      'SENT or DELIVERED dispatches, newest first, selected either by `trackingTags` (repeated) with `match` ANY (the default) or ALL, or by ' +
      '`scope=WORKSPACE` without tags or match; neither or both is 422. The response is streamed, so `limit` may be 100000.',
    examples: {
      response: {
        ...reportHead,
        items: [
          {
            dispatchId: DISPATCH_ID,
            recipientPhone: '+6281234567890',
            templateId: DEMO_TEMPLATE_ID,
            templateName: 'Order shipped',
            source: 'EXTERNAL_API',
            apiClient: { id: API_KEY_ID, name: 'demo' },
            status: 'DELIVERED',
            trackingTags: ['november-promo'],
            creditCost: 2,
            amountRupiah: 300,
            createdAt: '2026-11-03T02:14:00.000Z',
            sentAt: '2026-11-03T02:14:00.412Z',
            deliveredAt: '2026-11-03T02:14:01.000Z',
          },
        ],
        pagination: { page: 1, limit: 50, totalItems: 1, totalPages: 1 },
      },
    },
  },
  sendCheck: {
    tag: 'Messages',
    description: 'Whether a template went to a number: the newest dispatch that is not failed or canceled, over the whole history or one WIB `date`.',
    examples: { response: { sent: true, dispatchId: DISPATCH_ID, submittedAt: '2026-11-03T02:14:00.000Z' } },
  },
  whatsappWebhookVerify: {
    tag: 'Webhooks',
    description: 'Meta’s subscription handshake: answers `hub.challenge` as plain text when `hub.verify_token` matches. Called by Meta, not by integrations.',
    errors: ['forbidden'],
    examples: { response: '1158201444' },
  },
  whatsappWebhook: {
    tag: 'Webhooks',
    description:
      'Status callbacks and inbound messages from the WhatsApp Cloud API. `X-Hub-Signature-256` must be `sha256=` and the hex HMAC-SHA256 ' +
      'of the raw body with the app secret; anything else is 401 before the body is read. Called by Meta (or the sandbox), not by integrations.',
    errors: ['unauthorized'],
    body: webhookPayloadSchema,
    examples: {
      request: {
        object: 'whatsapp_business_account',
        entry: [
          {
            changes: [
              {
                field: 'messages',
                value: {
                  metadata: { phone_number_id: '106540352242922' },
                  statuses: [{ id: 'wamid.HBgLNjI4MTIzNDU2Nzg5MA', status: 'delivered', timestamp: '1793678041', biz_opaque_callback_data: DISPATCH_ID }],
                },
              },
            ],
          },
        ],
      },
      response: { success: true },
    },
  },
  listConversations: {
    tag: 'Conversations',
    description: 'Conversations, latest activity first, a cursor page at a time; with `phone` (normalized to E.164), the one conversation with that number.',
    examples: { response: { items: [conversation], nextCursor: null } },
  },
  getConversation: {
    tag: 'Conversations',
    description: 'A missing conversation and another workspace’s are the same 404.',
    errors: ['not_found'],
    examples: { response: conversation },
  },
  conversationMessages: {
    tag: 'Conversations',
    description: 'Messages newest first, a cursor page at a time; outbound ones carry their dispatch’s current status.',
    errors: ['not_found'],
    examples: {
      response: {
        items: [
          { id: 'wamid.reply.1', direction: 'inbound', type: 'text', text: 'Terima kasih!', dispatchId: null, status: null, createdAt: '2026-11-03T02:15:04.120Z' },
          {
            id: DISPATCH_ID,
            direction: 'outbound',
            type: 'template',
            text: 'Halo Budi, pesanan A-1042 sudah dikirim.',
            dispatchId: DISPATCH_ID,
            status: 'delivered',
            createdAt: '2026-11-03T02:14:00.000Z',
          },
        ],
        nextCursor: null,
      },
    },
  },
  getMessage: {
    tag: 'Messages',
    description: 'An unknown dispatch and another workspace’s are the same 404. `queued` and `processing` may still change.',
    errors: ['not_found'],
    examples: {
      response: {
        dispatchId: DISPATCH_ID,
        status: 'delivered',
        channel: 'whatsapp',
        to: '+6281234567890',
        templateId: DEMO_TEMPLATE_ID,
        trackingTags: ['november-promo'],
        createdAt: '2026-11-03T02:14:00.000Z',
        updatedAt: '2026-11-03T02:14:01.000Z',
        sentAt: '2026-11-03T02:14:00.412Z',
        deliveredAt: '2026-11-03T02:14:01.000Z',
        failureCode: null,
      },
    },
  },
};

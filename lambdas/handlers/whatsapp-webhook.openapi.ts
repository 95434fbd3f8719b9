import type { OperationDoc } from '../http/operation-doc';
import { DISPATCH_ID } from './openapi-examples';

/** docs/openapi.json on this route, beyond its table entry and schemas (lambdas/http/operation-doc.ts). */
export const operation: OperationDoc = {
  tag: 'Webhooks',
  description:
    'Status callbacks and inbound messages from the WhatsApp Cloud API. `X-Hub-Signature-256` must be `sha256=` and the hex HMAC-SHA256 ' +
    'of the raw body with the app secret; anything else is 401 before the body is read. Called by Meta (or the sandbox), not by integrations.',
  errors: ['unauthorized'],
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
};

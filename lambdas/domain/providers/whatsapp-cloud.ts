import type { HeaderParameter } from '../templates/template-parameters';
import { ProviderError, type Provider, type ProviderMessage } from './provider';
import { watchRequest, type RequestWrites } from './request-writes';
import { UnusableTokenError, type WhatsAppCredentials } from './whatsapp-credentials';
import { classifyUnansweredSend, classifyWhatsAppError, isGatewayLoss, type GraphError } from './whatsapp-errors';

export interface WhatsAppCloudOptions {
  /** e.g. https://graph.facebook.com/v26.0 (a local stub in tests). */
  baseUrl: string;
  credentials: () => Promise<WhatsAppCredentials>;
  timeoutMs: number;
  fetch?: typeof fetch;
}

interface GraphResponse {
  /** `message_status` is WhatsApp's pacing verdict on a template message: `accepted`, `held_for_quality_assessment` (or `paused`). */
  messages?: { id: string; message_status?: string }[];
  error?: GraphError;
}

/**
 * Sends template messages through the WhatsApp Cloud API (`POST /{phone-number-id}/messages`).
 * The dispatch id travels as `biz_opaque_callback_data`, so every status webhook names it.
 */
export function whatsAppCloudProvider(options: WhatsAppCloudOptions): Provider {
  // The global `fetch` as it is at each call, not at creation: a test's mock of it takes effect.
  const request: typeof fetch = (input, init) => (options.fetch ?? fetch)(input, init);
  const loadCredentials = async (): Promise<WhatsAppCredentials> => {
    try {
      return await options.credentials();
    } catch (error) {
      // A token no request can carry is a token to replace, as one WhatsApp refuses: held, not retried to failure.
      if (error instanceof UnusableTokenError) throw new ProviderError('credentials', 'token_unusable', error.message, { reached: false });
      // Secrets Manager away or throttled: ours, and WhatsApp was not asked (decision 205).
      throw new ProviderError('transient', 'credentials_unavailable', 'WhatsApp credentials could not be read', { cause: error, reached: false });
    }
  };
  return {
    // Secrets Manager is read here, before a dispatch is claimed; `send` then finds them cached.
    ready: async () => {
      const { phoneNumberId } = await loadCredentials();
      return phoneNumberId ? { defaultPhoneNumberId: phoneNumberId } : {};
    },
    async send(message: ProviderMessage) {
      const credentials = await loadCredentials();
      const phoneNumberId = message.phoneNumberId ?? credentials.phoneNumberId;
      if (!phoneNumberId) throw new ProviderError('permanent', 'no_phone_number_id', 'No WhatsApp phone number id is configured for this workspace');

      const body = {
        messaging_product: 'whatsapp',
        recipient_type: 'individual',
        to: message.to.replace(/^\+/, ''),
        type: 'template',
        biz_opaque_callback_data: message.dispatchId,
        template: {
          name: message.templateName,
          language: { code: message.language },
          components: templateComponents(message),
        },
      };

      let response: Response;
      const writes: RequestWrites = { made: false, written: false };
      try {
        response = await watchRequest(writes, () =>
          request(`${options.baseUrl}/${phoneNumberId}/messages`, {
            method: 'POST',
            headers: { authorization: `Bearer ${credentials.accessToken}`, 'content-type': 'application/json' },
            body: JSON.stringify(body),
            signal: AbortSignal.timeout(options.timeoutMs),
          }),
        );
      } catch (error) {
        throw classifyUnansweredSend(error, options.timeoutMs, credentials.accessToken, writes);
      }

      const answer = (await response.json().catch(() => ({}))) as GraphResponse;
      const providerMessageId = answer.messages?.[0]?.id;
      // Anything but `accepted` (or no verdict) is a message WhatsApp holds: its reports may come late.
      const pacing = answer.messages?.[0]?.message_status;
      if (response.ok && providerMessageId) return { providerMessageId, phoneNumberId, ...(pacing && pacing !== 'accepted' ? { held: true } : {}) };
      if (response.ok) throw new ProviderError('unknown', 'no_message_id', 'WhatsApp answered without a message id');
      if (isGatewayLoss(response.status, answer.error?.code)) throw new ProviderError('unknown', `http_${response.status}`, `WhatsApp's gateway answered HTTP ${response.status}`);
      throw classifyWhatsAppError(response.status, answer.error, credentials.accessToken);
    },
    settle: () => Promise.resolve(),
  };
}

/**
 * The send request's `template.components`: header, body, limited-time offer, button and carousel
 * card parameters, in WhatsApp's shapes (named templates name each body and header parameter).
 */
function templateComponents(message: ProviderMessage): Record<string, unknown>[] {
  const names = message.bodyParameterNames;
  const body = message.bodyParameters.map((text, i) => ({ type: 'text', ...(names?.[i] ? { parameter_name: names[i] } : {}), text }));
  return [
    ...(message.header ? [{ type: 'header', parameters: [headerParameter(message.header)] }] : []),
    ...(body.length ? [{ type: 'body', parameters: body }] : []),
    ...(message.offerExpirationTimeMs !== undefined
      ? [{ type: 'limited_time_offer', parameters: [{ type: 'limited_time_offer', limited_time_offer: { expiration_time_ms: message.offerExpirationTimeMs } }] }]
      : []),
    ...buttonComponents(message.buttons),
    ...(message.cards
      ? [
          {
            type: 'carousel',
            cards: message.cards.map((card, index) => ({
              card_index: index,
              components: [
                ...(card.header ? [{ type: 'header', parameters: [headerParameter(card.header)] }] : []),
                ...(card.bodyParameters.length ? [{ type: 'body', parameters: card.bodyParameters.map((text) => ({ type: 'text', text })) }] : []),
                ...buttonComponents(card.buttons),
              ],
            })),
          },
        ]
      : []),
  ];
}

const buttonComponents = (buttons: ProviderMessage['buttons']) =>
  (buttons ?? []).map(({ index, subType, value }) => ({ type: 'button', sub_type: subType, index, parameters: [buttonParameter(subType, value)] }));

function headerParameter(header: HeaderParameter): Record<string, unknown> {
  switch (header.type) {
    case 'text':
      return { type: 'text', ...(header.parameterName ? { parameter_name: header.parameterName } : {}), text: header.text };
    case 'location': {
      const { type, ...location } = header;
      return { type, location };
    }
    default:
      return { type: header.type, [header.type]: { link: header.link } };
  }
}

const buttonParameter = (subType: 'url' | 'quick_reply' | 'copy_code', value: string) => {
  switch (subType) {
    case 'url':
      return { type: 'text', text: value };
    case 'quick_reply':
      return { type: 'payload', payload: value };
    case 'copy_code':
      return { type: 'coupon_code', coupon_code: value };
  }
};

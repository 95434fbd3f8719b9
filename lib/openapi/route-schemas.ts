import { schemas as conversationMessages } from '../../lambdas/handlers/conversation-messages';
import { schemas as deliveryStatus } from '../../lambdas/handlers/delivery-status';
import { schemas as getConversation } from '../../lambdas/handlers/get-conversation';
import { schemas as getMessage } from '../../lambdas/handlers/get-message';
import { schemas as getTemplate } from '../../lambdas/handlers/get-template';
import { schemas as health } from '../../lambdas/handlers/health';
import { schemas as listConversations } from '../../lambdas/handlers/list-conversations';
import { schemas as listTemplates } from '../../lambdas/handlers/list-templates';
import { schemas as previewTemplate } from '../../lambdas/handlers/preview-template';
import { schemas as sendCheck } from '../../lambdas/handlers/send-check';
import { schemas as sendMessage } from '../../lambdas/handlers/send-message';
import { schemas as trackingDispatches } from '../../lambdas/handlers/tracking-dispatches';
import { schemas as trackingSummary } from '../../lambdas/handlers/tracking-summary';
import { schemas as trackingTags } from '../../lambdas/handlers/tracking-tags';
import { schemas as whatsappWebhook } from '../../lambdas/handlers/whatsapp-webhook';
import { schemas as whatsappWebhookVerify } from '../../lambdas/handlers/whatsapp-webhook-verify';
import type { RequestSchemas } from '../../lambdas/http/http-handler';
import type { RouteId } from '../../lambdas/routes';

/**
 * Each route's request and response schemas, exactly the ones its handler validates with and is
 * typed by. A route added to the table without an entry here does not compile.
 */
export const routeSchemas: Record<RouteId, RequestSchemas> = {
  health,
  listTemplates,
  getTemplate,
  previewTemplate,
  sendMessage,
  deliveryStatus,
  trackingTags,
  trackingSummary,
  trackingDispatches,
  sendCheck,
  whatsappWebhookVerify,
  whatsappWebhook,
  listConversations,
  getConversation,
  conversationMessages,
  getMessage,
};

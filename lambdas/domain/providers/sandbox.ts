import { logger } from '../../shared/logger';
import { ProviderError, type Provider, type ProviderMessage } from './provider';
import { signWebhookBody, statusWebhook, type WebhookStatus } from './whatsapp-webhook';

export interface SandboxOptions {
  /** Our own webhook; the sandbox reports there exactly as WhatsApp would. */
  callbackUrl: string | undefined;
  appSecret: () => Promise<string>;
  reportDelayMs: number;
}

/** How often each dispatch reached the sandbox: the proof that nothing is sent twice. */
const callsByDispatch = new Map<string, number>();
/** Kept for the most recent dispatches only, so a long-lived process does not grow without end. */
const MAX_TRACKED_DISPATCHES = 100_000;
const pendingReports = new Set<Promise<void>>();
/**
 * Like WhatsApp (which keeps retrying for days), the sandbox retries a report our webhook did not
 * take: after 0.5, 1, 2, 4, 8, 16 s, then every 30 s, for about two minutes in all, so a table
 * outage of a minute loses no report.
 */
const REPORT_ATTEMPTS = 10;
const reportRetryDelayMs = (attempt: number) => Math.min(30_000, 500 * 2 ** (attempt - 1));

/** Numbers ending so are reported as WhatsApp reports a message that was read: every status, each priced. */
const READ_ENDING = '0200';
const SANDBOX_PRICING = { billable: true, category: 'utility', pricing_model: 'PMP', type: 'regular' };

export const sandboxCallCount = (dispatchId: string): number => callsByDispatch.get(dispatchId) ?? 0;

/** Forget the calls counted so far (a test's fresh container). */
export const clearSandboxCalls = (): void => callsByDispatch.clear();

/** The number the sandbox sends from, as WhatsApp names the number that sent a message. */
const sandboxSender = (phoneNumberId: string | undefined): string => phoneNumberId ?? 'sandbox';

/**
 * The provider for local runs and test accounts (docs/api.md#sandbox), reporting as the number
 * that sent (the workspace's, lambdas/domain/workspaces/workspace-number.ts). By the recipient's last four digits:
 * 0000 rejects (131026); 0429 is rate limited twice, then accepts; 0504 accepts but times out
 * once (an unknown outcome, settled by its later reports, which the reconciler waits for before it
 * would send it again, decision 227); 0200 is accepted, then reported sent,
 * delivered and read, each with Meta's pricing, as WhatsApp reports a message its recipient read;
 * anything else is accepted, then reported delivered. Reports arrive through our webhook, signed,
 * `reportDelayMs` apart.
 */
export function sandboxProvider(options: SandboxOptions): Provider {
  const report = (message: ProviderMessage, statuses: WebhookStatus['status'][], afterMs: number) => {
    // Nowhere to post (a unit test): no timers either, or the deliver consumer, which awaits
    // pending reports, waits 300 ms for nothing (forever under jest's fake timers).
    if (!options.callbackUrl) return;
    const { callbackUrl } = options;
    const { dispatchId } = message;
    const pending = (async () => {
      for (const [i, status] of statuses.entries()) {
        await new Promise((resolve) => setTimeout(resolve, afterMs * (i + 1)));
        await postWithRetries(callbackUrl, message, status);
      }
    })().catch((error: unknown) => logger.warn('Sandbox report failed', { dispatchId, error: error as Error }));
    pendingReports.add(pending);
    void pending.finally(() => pendingReports.delete(pending));
  };

  const post = async (callbackUrl: string, { dispatchId, phoneNumberId, to }: ProviderMessage, status: WebhookStatus['status']) => {
    // As WhatsApp does: the report names the number that sent the message.
    const body = JSON.stringify(
      statusWebhook(sandboxSender(phoneNumberId), [
        {
          id: `wamid.sandbox.${dispatchId}`,
          status,
          timestamp: String(Math.floor(Date.now() / 1000)),
          biz_opaque_callback_data: dispatchId,
          ...(to.endsWith(READ_ENDING) ? { pricing: SANDBOX_PRICING } : {}),
        },
      ]),
    );
    const response = await fetch(callbackUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-hub-signature-256': signWebhookBody(body, await options.appSecret()) },
      body,
    });
    if (!response.ok) throw new Error(`webhook answered ${response.status}`);
  };

  const postWithRetries = async (callbackUrl: string, message: ProviderMessage, status: WebhookStatus['status']) => {
    for (let attempt = 1; ; attempt++) {
      try {
        return await post(callbackUrl, message, status);
      } catch (error) {
        if (attempt >= REPORT_ATTEMPTS) throw error;
        await new Promise((resolve) => setTimeout(resolve, reportRetryDelayMs(attempt)));
      }
    }
  };

  return {
    send(message: ProviderMessage) {
      const calls = (callsByDispatch.get(message.dispatchId) ?? 0) + 1;
      if (calls === 1 && callsByDispatch.size >= MAX_TRACKED_DISPATCHES) callsByDispatch.delete(callsByDispatch.keys().next().value!);
      callsByDispatch.set(message.dispatchId, calls);
      const ending = message.to.slice(-4);

      if (ending === '0000') return Promise.reject(new ProviderError('permanent', '131026', 'Message undeliverable (sandbox)'));
      // Counted on the dispatch, not here: deployed, a retry may reach another container.
      if (ending === '0429' && (message.laterAnswers ?? calls - 1) < 2) return Promise.reject(new ProviderError('transient', '130429', 'Rate limit hit (sandbox)'));
      if (ending === '0504' && calls === 1) {
        report(message, ['sent', 'delivered'], options.reportDelayMs);
        return Promise.reject(new ProviderError('unknown', 'timeout', 'Timed out after accepting (sandbox)'));
      }
      report(message, ending === READ_ENDING ? ['sent', 'delivered', 'read'] : ['delivered'], options.reportDelayMs);
      return Promise.resolve({ providerMessageId: `wamid.sandbox.${message.dispatchId}`, phoneNumberId: sandboxSender(message.phoneNumberId) });
    },
    async settle() {
      while (pendingReports.size) await Promise.all([...pendingReports]);
    },
  };
}

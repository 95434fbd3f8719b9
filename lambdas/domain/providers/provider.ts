import type { TemplateParameters } from '../templates/template-parameters';

/** What a provider needs to send one template message. */
export interface ProviderMessage extends TemplateParameters {
  dispatchId: string;
  /** E.164. */
  to: string;
  templateName: string;
  language: string;
  bodyParameters: string[];
  /** The sending business number, when the workspace has its own. */
  phoneNumberId?: string;
  /** How often the provider answered "later" for this dispatch before: the dispatch's count, the same in every container. */
  laterAnswers?: number;
}

/**
 * A provider's verdict when it did not plainly accept:
 * `permanent` — it refused this message for good (dispatch failed with `code`);
 * `transient` — it certainly did not take it, try again later (rate limit, 5xx, no connection;
 *                 `reached` says whether that was the provider's answer or a fault of ours);
 * `unknown`   — it may have taken it (timeout after sending): never send again, wait for a report;
 * `credentials` — it refused our access token (expired, revoked, lacking a permission): nothing is
 *                 wrong with the message, so delivery holds until someone fixes the token.
 */
export class ProviderError extends Error {
  override name = 'ProviderError';
  /**
   * How long a `transient` refusal takes to lift: `short`, seconds (a throughput limit, a fault on
   * the provider's side); `long`, minutes (WhatsApp's limit on messages to one person, a number
   * paused for its throughput upgrade), so its retries wait longer (decision 138); `outage`, the
   * provider down, for minutes and often tens of them: its retries wait as long ones do, for half
   * an hour rather than five answers (decision 228).
   */
  readonly backOff: 'short' | 'long' | 'outage';
  /**
   * What the provider said of it beyond its code, for the operators' log lines only (WhatsApp's
   * `error_subcode`, `error_data.details`, `fbtrace_id`, which Meta's support asks for).
   */
  readonly detail: Readonly<Record<string, string | number>>;
  /**
   * Whether a request reached the provider. False for a fault of ours before one did (credentials
   * not loaded, a connection never made, decision 160): no answer of the provider's, so it spends
   * nothing of a dispatch's retry budget, which counts the provider's "later" answers (decision 205).
   */
  readonly reached: boolean;

  constructor(
    readonly kind: 'permanent' | 'transient' | 'unknown' | 'credentials',
    readonly code: string,
    message: string,
    options?: ErrorOptions & { backOff?: ProviderError['backOff']; detail?: Record<string, string | number>; reached?: boolean },
  ) {
    super(message, options);
    this.backOff = options?.backOff ?? 'short';
    this.detail = options?.detail ?? {};
    this.reached = options?.reached ?? true;
  }
}

/** A provider's plain acceptance. */
export interface ProviderAcceptance {
  providerMessageId: string;
  /**
   * The number it was sent from (WhatsApp's phone number id): the dispatch keeps it, and the
   * statuses WhatsApp reports on that number apply to it whoever owns the number later.
   */
  phoneNumberId?: string;
  /**
   * The provider took the message but holds it for now (WhatsApp's template pacing, decision 148):
   * its first report may come up to an hour later, or a failure (132015) if the template is paused.
   */
  held?: boolean;
}

/** What a provider ready to send tells of the send before it is made. */
export interface ProviderReadiness {
  /**
   * The number a message that names none is sent from (WhatsApp: the secret's `phoneNumberId`, the
   * stack's default number), when one is configured: the claim records it, so WhatsApp's reports of
   * the message apply by it whatever the workspace names later (decision 219).
   */
  defaultPhoneNumberId?: string;
}

export interface Provider {
  /**
   * Loads what a send needs (credentials), so that once a dispatch is claimed nothing but the
   * request itself stands between the claim and the provider having the message. Throws
   * ProviderError. Providers with nothing to load leave it out.
   */
  ready?(): Promise<ProviderReadiness>;
  /** Resolves with the provider's message id when accepted; throws ProviderError otherwise. */
  send(message: ProviderMessage): Promise<ProviderAcceptance>;
  /** Waits for work the provider started in the background (the sandbox's reports). */
  settle(): Promise<void>;
}

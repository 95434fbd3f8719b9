import * as z from '../../shared/zod';
import { NOT_PRINTABLE, PRINTABLE } from '../../shared/unicode-text';

/** Meta's template categories (WhatsApp Business Management API). */
export const templateCategories = ['MARKETING', 'UTILITY', 'AUTHENTICATION'] as const;
export type TemplateCategory = (typeof templateCategories)[number];

/** What a send of a synced template costs unless the workspace says otherwise (docs/api.md#templates). */
export const DEFAULT_CREDIT_COST_BY_CATEGORY: Readonly<Record<TemplateCategory, number>> = { MARKETING: 2, UTILITY: 1, AUTHENTICATION: 1 };

const creditCost = z.int().check(z.gte(0), z.lte(1_000_000));
const creditCostByCategorySchema = z.strictObject({ MARKETING: creditCost, UTILITY: creditCost, AUTHENTICATION: creditCost });

/** A usage plan's name, as the stack's `usagePlans` setting spells it (lib/stack-config.ts). */
export const usagePlanNameSchema = z.string().check(z.regex(/^[A-Za-z0-9_-]{1,64}$/, 'a usage plan name: letters, digits, "-" and "_", at most 64 characters'));

export const workspaceSettingsSchema = z.object({
  /** Accepted sends per minute before 429. */
  sendsPerMinute: z._default(z.int().check(z.gte(1), z.lte(1_000_000)), 600),
  /** `wib-day`: one send of a template to a number per WIB day (409 duplicate_send). */
  dedupe: z._default(z.enum(['none', 'wib-day']), 'none'),
  /** Which provider delivers this workspace's messages. */
  provider: z._default(z.enum(['sandbox', 'whatsapp']), 'sandbox'),
  /** The workspace's own WhatsApp business number (Cloud API phone number id), if it has one. */
  whatsappPhoneNumberId: z.optional(z.string().check(z.regex(/^[A-Za-z0-9_-]{1,64}$/))),
  /**
   * The throughput of the workspace's own number, messages a second (Meta: 80 by default, 1,000
   * once upgraded, 20 for a number shared with the WhatsApp Business app); its deliveries are paced
   * to it. Absent: the stack's `whatsappMessagesPerSecond`.
   */
  whatsappMessagesPerSecond: z.optional(z.int().check(z.gte(1), z.lte(1_000))),
  /**
   * The workspace's WhatsApp Business Account: where `templates sync` reads its templates, and
   * whose template webhooks (entry.id) apply to this workspace.
   */
  whatsappBusinessAccountId: z.optional(z.string().check(z.regex(/^[0-9]{1,32}$/, 'the numeric WhatsApp Business Account id'))),
  /** Credits a send costs, by the template's Meta category; what a synced template's versions charge. */
  creditCostByCategory: z._default(creditCostByCategorySchema, DEFAULT_CREDIT_COST_BY_CATEGORY),
  /**
   * The API Gateway usage plan this workspace's requests count against, on a stack with usage
   * plans (docs/deploy.md#rate-limits-and-usage-plans); the local runtime only records it.
   */
  usagePlan: z.optional(usagePlanNameSchema),
});

/** Settings that name an identifier outside us; each is bound to at most one workspace. */
export const bindingSettings = ['whatsappPhoneNumberId', 'whatsappBusinessAccountId'] as const;
export type BindingSetting = (typeof bindingSettings)[number];

export const workspaceInputSchema = z.object({
  id: z.string().check(z.regex(/^[A-Za-z0-9][A-Za-z0-9_-]{1,63}$/, 'letters, digits, "-" and "_", 2 to 64 characters')),
  /** Printed in the CLI's tab-separated lines, which a line break or a tab would split (docs/operations.md loops over them). */
  name: z.string().check(z.trim(), z.minLength(1), z.maxLength(200), z.regex(PRINTABLE, NOT_PRINTABLE)),
  rupiahPerCredit: z.number().check(z.gte(0)),
  settings: z._default(workspaceSettingsSchema, { sendsPerMinute: 600, dedupe: 'none', provider: 'sandbox', creditCostByCategory: DEFAULT_CREDIT_COST_BY_CATEGORY }),
});

export type WorkspaceInput = z.input<typeof workspaceInputSchema>;
export type WorkspaceSettings = z.infer<typeof workspaceSettingsSchema>;

/**
 * The workspace's API Gateway API key, which a usage plan counts its requests by. It is an
 * accounting identifier, never a credential: clients never see or send it, and the stack reads
 * API keys only from its authorizer (`apiKeySourceType: AUTHORIZER`), never from a request header.
 * Its value is kept here so the authorizer answers it without calling API Gateway (decision 69).
 */
export const gatewayUsageKeySchema = z.strictObject({ id: z.string().check(z.minLength(1)), value: z.string().check(z.minLength(20)) });
export type GatewayUsageKey = z.infer<typeof gatewayUsageKeySchema>;

export interface Workspace extends z.infer<typeof workspaceInputSchema> {
  createdAt: string;
  updatedAt: string;
  gatewayUsageKey?: GatewayUsageKey;
}

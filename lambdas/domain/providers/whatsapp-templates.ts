import * as z from '../../shared/zod';
import { ProviderError } from './provider';
import { classifyWhatsAppError, withoutToken } from './whatsapp-errors';
import { issueLine } from '../../shared/zod-issues';

/**
 * A message template as the WhatsApp Business Management API returns it
 * (`GET /{whatsapp-business-account-id}/message_templates`). Only what a sync uses is declared;
 * the rest passes through unread.
 */
const buttonSchema = z.looseObject({
  type: z.string(),
  text: z.optional(z.string()),
  url: z.optional(z.string()),
});

const componentFields = {
  type: z.string(),
  format: z.optional(z.string()),
  text: z.optional(z.string()),
  buttons: z.optional(z.array(buttonSchema)),
  /** LIMITED_TIME_OFFER: with an expiration, a send gives the offer's end. */
  limited_time_offer: z.optional(z.looseObject({ has_expiration: z.optional(z.boolean()) })),
};

const componentSchema = z.looseObject({
  ...componentFields,
  /** CAROUSEL: its cards, each with a header, a body and buttons of its own. */
  cards: z.optional(z.array(z.looseObject({ components: z._default(z.array(z.looseObject(componentFields)), []) }))),
});

/** What names a template at Meta, and for us (lambdas/domain/templates/synced-template.ts). */
const templateRefFields = {
  name: z.string().check(z.minLength(1)),
  language: z.string().check(z.minLength(1)),
};

/** The name and language of a listed item the sync could not read otherwise: the template is still Meta's. */
export const graphTemplateRefSchema = z.looseObject(templateRefFields);

export const graphTemplateSchema = z.looseObject({
  id: z.string(),
  ...templateRefFields,
  status: z.string(),
  category: z.string(),
  parameter_format: z._default(z.enum(['POSITIONAL', 'NAMED']), 'POSITIONAL'),
  components: z._default(z.array(componentSchema), []),
});
export type GraphTemplate = z.infer<typeof graphTemplateSchema>;
export type GraphTemplateComponent = z.infer<typeof componentSchema>;

const pageSchema = z.object({
  data: z.array(z.unknown()),
  paging: z.optional(z.object({ cursors: z.optional(z.object({ after: z.optional(z.string()) })), next: z.optional(z.string()) })),
});

export interface TemplateListOptions {
  /** e.g. https://graph.facebook.com/v26.0 (a local stub in tests). */
  baseUrl: string;
  businessAccountId: string;
  accessToken: string;
  timeoutMs: number;
  fetch?: typeof fetch;
}

const FIELDS = 'id,name,language,status,category,parameter_format,components';
const PAGE_SIZE = 100;

/**
 * Every page of a WhatsApp Business Account's templates, in Meta's order: while a page has
 * `paging.next`, the next is asked for with its `paging.cursors.after` (against our own base
 * URL, so a stub or proxy stays in the path). Each item is read on its own: one Meta adds fields
 * to, or one we cannot read, comes back as `unreadable` with its issue rather than stopping the sync.
 * Errors are the provider's (ProviderError; `credentials` when the token is refused). Ending
 * without an error, it has read Meta's whole list: the sync retires what the list no longer has.
 */
export async function* readMessageTemplates(options: TemplateListOptions): AsyncGenerator<{ template: GraphTemplate } | { unreadable: unknown; issue: string }> {
  let after: string | undefined;
  for (;;) {
    const url = new URL(`${options.baseUrl}/${options.businessAccountId}/message_templates`);
    url.searchParams.set('fields', FIELDS);
    url.searchParams.set('limit', String(PAGE_SIZE));
    if (after) url.searchParams.set('after', after);
    const answer = await graphGet(url, options);
    const page = pageSchema.safeParse(answer);
    if (!page.success) throw new ProviderError('transient', 'unreadable_page', 'WhatsApp answered a template page we cannot read');
    for (const item of page.data.data) {
      const parsed = graphTemplateSchema.safeParse(item);
      yield parsed.success ? { template: parsed.data } : { unreadable: item, issue: issueLine(parsed.error) };
    }
    if (!page.data.paging?.next) return;
    after = page.data.paging.cursors?.after;
    // A next page no cursor asks for: ending here would pass the list's first pages for all of it.
    if (!after) throw new ProviderError('transient', 'unreadable_page', 'WhatsApp answered a template page with a next page but no cursor to it');
  }
}

/**
 * One template by Meta's id (`GET /{message-template-id}`), with the fields a sync reads: what a
 * template webhook reads again when Meta says its components changed.
 */
export async function readMessageTemplate(options: Omit<TemplateListOptions, 'businessAccountId'>, templateId: string): Promise<GraphTemplate> {
  const url = new URL(`${options.baseUrl}/${encodeURIComponent(templateId)}`);
  url.searchParams.set('fields', FIELDS);
  const template = graphTemplateSchema.safeParse(await graphGet(url, options));
  if (!template.success) throw new ProviderError('permanent', 'unreadable_template', `WhatsApp answered a template we cannot read: ${issueLine(template.error)}`);
  return template.data;
}

/** A Graph API GET with the token; its answer, or the provider's error (ProviderError; `credentials` when the token is refused). */
async function graphGet(url: URL, options: Pick<TemplateListOptions, 'accessToken' | 'timeoutMs' | 'fetch'>): Promise<unknown> {
  let response: Response;
  try {
    response = await (options.fetch ?? fetch)(url, { headers: { authorization: `Bearer ${options.accessToken}` }, signal: AbortSignal.timeout(options.timeoutMs) });
  } catch (error) {
    const message = withoutToken((error as Error).message, options.accessToken);
    // Its cause quotes the token where `fetch` refused it as a header value: left out then.
    throw new ProviderError('transient', 'network', `WhatsApp could not be reached: ${message}`, message === (error as Error).message ? { cause: error } : undefined);
  }
  const answer: unknown = await response.json().catch(() => undefined);
  if (!response.ok) {
    const error = z
      .object({
        error: z.object({
          code: z.optional(z.number()),
          message: z.optional(z.string()),
          type: z.optional(z.string()),
          error_subcode: z.optional(z.number()),
          // Some Graph errors give error_data as a string: it never costs the code (graphErrorDetails).
          error_data: z.optional(z.unknown()),
          fbtrace_id: z.optional(z.string()),
        }),
      })
      .safeParse(answer);
    throw classifyWhatsAppError(response.status, error.data?.error, options.accessToken);
  }
  return answer;
}

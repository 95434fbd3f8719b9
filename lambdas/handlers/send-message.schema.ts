import * as z from '../shared/zod';
import { dispatchStatuses } from '../domain/messages/dispatch';
import { uuid } from '../http/schemas';

/** The request of POST /v1/messages (docs/api.md#send-a-message and #limits): every variant, every limit. */
const httpsUrl = z.url({ protocol: /^https$/, error: 'must be an https URL' });

/**
 * A dispatch keeps its variables, their values in template order and the rendered text (three
 * copies) in one DynamoDB item of at most 400 KB. The contract's per-value limits alone would let
 * 50 × 4000 characters through (up to 600 KB of UTF-8): more is refused as 422 (docs/api.md#limits).
 */
export const MAX_VARIABLE_BYTES = 120_000;
const variableBytes = (variables: Record<string, string>) => Object.entries(variables).reduce((total, [name, value]) => total + Buffer.byteLength(name) + Buffer.byteLength(value), 0);

const templateContent = z.strictObject({
  type: z.literal('template'),
  templateId: uuid(),
  // A form cannot express an empty object; `content[variables]=` arrives as "".
  variables: z.pipe(
    z.transform((value) => (value === '' ? {} : value)),
    z.record(z.string(), z.string().check(z.maxLength(4000))).check(
      z.refine((variables) => Object.keys(variables).length <= 50, 'at most 50 variables'),
      z.refine((variables) => variableBytes(variables) <= MAX_VARIABLE_BYTES, `at most ${MAX_VARIABLE_BYTES / 1000} KB of names and values together (UTF-8), so the message fits in one stored item`),
    ),
  ),
});
const textContent = z.strictObject({ type: z.literal('text'), text: z.string().check(z.minLength(1), z.maxLength(4000)) });
const imageContent = z.strictObject({ type: z.literal('image'), url: httpsUrl, caption: z.optional(z.string().check(z.maxLength(1024))) });
const documentContent = z.strictObject({
  type: z.literal('document'),
  url: httpsUrl,
  filename: z.string().check(z.minLength(1), z.maxLength(255)),
  caption: z.optional(z.string().check(z.maxLength(1024))),
});

/**
 * Duplicates are dropped (dispatch.ts), so the limit counts distinct tags once trimmed: 20 tags with
 * one given twice are 20. A refinement, not a transform, keeps the field a list to the form parser
 * (form-body-parser.ts reads `trackingTags=a` as `["a"]` by it), and leaves the document no
 * `maxItems` that a client's validator would hold a valid repeat to.
 */
const MAX_TRACKING_TAGS = 20;
const trackingTags = z
  .array(z.string().check(z.trim(), z.minLength(1), z.maxLength(256)))
  .check(z.refine((tags) => new Set(tags).size <= MAX_TRACKING_TAGS, `at most ${MAX_TRACKING_TAGS} distinct tags (each trimmed; a tag given twice counts once)`))
  .register(z.globalRegistry, { description: `At most ${MAX_TRACKING_TAGS} distinct tags: each is trimmed, and a tag given twice is kept once.` });

export const sendMessageBody = z.strictObject({
  channel: z.enum(['whatsapp', 'instagram']),
  // The contract sets no maximum: a value too long for a phone number is not one (send-message.ts).
  to: z.string().check(z.minLength(1)),
  content: z.discriminatedUnion('type', [templateContent, textContent, imageContent, documentContent]),
  contactName: z.optional(z.string().check(z.maxLength(200))),
  tagIds: z.optional(z.array(uuid()).check(z.maxLength(100))),
  trackingTags: z.optional(trackingTags),
});

export type SendMessageBody = z.infer<typeof sendMessageBody>;

/** The 202 body (docs/api.md#send-a-message): these three and no others. */
export const sendMessageAccepted = z.strictObject({
  dispatchId: z.guid(),
  status: z.enum(dispatchStatuses),
  /** Where to read the dispatch's status: GET /v1/messages/{dispatchId}. */
  statusUrl: z.url(),
});

export { idempotencyKeyHeaders as sendMessageHeaders } from '../shared/idempotency-key';

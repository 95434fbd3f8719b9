import * as z from '../../shared/zod';

// Its own module, apart from template.ts: every function that reads a dispatch parses these, and
// template.ts's other schemas (built at import, so never tree-shaken) would come along with them.

const headerSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('text'), text: z.string(), parameterName: z.optional(z.string()) }),
  z.object({ type: z.enum(['image', 'video', 'document']), link: z.string() }),
  z.object({ type: z.literal('location'), latitude: z.string(), longitude: z.string(), name: z.optional(z.string()), address: z.optional(z.string()) }),
]);
const buttonsSchema = z.array(z.object({ index: z.int(), subType: z.enum(['url', 'quick_reply', 'copy_code']), value: z.string() }));

/** The values a send gives WhatsApp beyond the body's, taken from a version's components; stored on the dispatch. */
export const templateParametersSchema = z.object({
  /** The body parameters' names, in body order, for templates with named parameters. */
  bodyParameterNames: z.optional(z.array(z.string())),
  header: z.optional(headerSchema),
  /** A limited-time offer's end, Unix time in milliseconds. */
  offerExpirationTimeMs: z.optional(z.int()),
  buttons: z.optional(buttonsSchema),
  /** A carousel's cards, in order: each card's header, body values and buttons. */
  cards: z.optional(z.array(z.object({ header: z.optional(headerSchema), bodyParameters: z.array(z.string()), buttons: z.optional(buttonsSchema) }))),
});
export type TemplateParameters = z.infer<typeof templateParametersSchema>;
export type HeaderParameter = NonNullable<TemplateParameters['header']>;
export type ButtonParameter = NonNullable<TemplateParameters['buttons']>[number];

import * as z from 'zod';

/** `{{name}}` placeholders; names are what variableDefinitions declare. */
export const PLACEHOLDER = /\{\{\s*([A-Za-z0-9_]+)\s*\}\}/g;

export const variableDefinitionSchema = z.object({
  name: z.string().regex(/^[A-Za-z0-9_]{1,64}$/, 'letters, digits and "_", at most 64 characters'),
  type: z.string().min(1).default('text'),
  required: z.boolean().default(true),
});

export const templateVersionInputSchema = z.object({
  id: z.uuid(),
  version: z.number().int().min(1),
  status: z.string().min(1),
  body: z.string().min(1).max(4096),
  variableDefinitions: z.array(variableDefinitionSchema).max(50).default([]),
  /** What the customer sees; defaults to the body with its placeholders. */
  customerPreview: z.string().optional(),
  creditCostPerSend: z.number().int().min(0),
  createdAt: z.iso.datetime({ offset: true }),
  readyAt: z.iso.datetime({ offset: true }).optional(),
  disabledAt: z.iso.datetime({ offset: true }).optional(),
});

/** WhatsApp's template categories; only MARKETING sends honour a recipient's opt-out. */
export const templateCategories = ['MARKETING', 'UTILITY', 'AUTHENTICATION'] as const;
export type TemplateCategory = (typeof templateCategories)[number];

/**
 * A template as imported from the seed file or the admin CLI. `providerName` and `language` are
 * what the WhatsApp Cloud API needs to send it, and what a later sync from the WhatsApp Business
 * Management API would fill in.
 */
export const templateInputSchema = z.object({
  id: z.uuid(),
  displayName: z.string().min(1).max(200),
  status: z.string().min(1),
  providerName: z.string().min(1).max(512),
  language: z.string().min(2).max(15),
  /** WhatsApp's category of the template; absent means not marketing. */
  category: z.enum(templateCategories).optional(),
  versions: z.array(templateVersionInputSchema).min(1).max(90),
});

export type TemplateInput = z.input<typeof templateInputSchema>;
export type Template = z.infer<typeof templateInputSchema>;
export type TemplateVersion = z.infer<typeof templateVersionInputSchema>;

/** Only APPROVED templates are listed or sendable (docs/api.md#templates). */
export const isListable = (template: Template): boolean => template.status === 'APPROVED';

const templateVersionResourceSchema = z.object({
  id: z.guid(),
  version: z.int().min(1),
  status: z.string(),
  variableDefinitions: z.array(z.object({ name: z.string(), type: z.string(), required: z.boolean() })),
  customerPreview: z.string(),
  creditCostPerSend: z.int().min(0),
  createdAt: z.iso.datetime({ offset: true }),
  readyAt: z.iso.datetime({ offset: true }).optional(),
  disabledAt: z.iso.datetime({ offset: true }).optional(),
});

/** The contract's message template (docs/api.md#templates), versions included. */
export const templateResourceSchema = z.object({
  id: z.guid(),
  displayName: z.string(),
  status: z.string(),
  versions: z.array(templateVersionResourceSchema),
});
export type TemplateResource = z.output<typeof templateResourceSchema>;

/** The contract's message template (docs/api.md#templates): exactly these fields. */
export function toTemplateResource(template: Template): TemplateResource {
  return {
    id: template.id,
    displayName: template.displayName,
    status: template.status,
    versions: template.versions.map(toTemplateVersionResource),
  };
}

function toTemplateVersionResource(version: TemplateVersion): TemplateResource['versions'][number] {
  return {
    id: version.id,
    version: version.version,
    status: version.status,
    variableDefinitions: version.variableDefinitions.map(({ name, type, required }) => ({ name, type, required })),
    customerPreview: version.customerPreview ?? version.body,
    creditCostPerSend: version.creditCostPerSend,
    createdAt: version.createdAt,
    ...(version.readyAt ? { readyAt: version.readyAt } : {}),
    ...(version.disabledAt ? { disabledAt: version.disabledAt } : {}),
  };
}

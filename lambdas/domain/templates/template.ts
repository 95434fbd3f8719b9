import * as z from '../../shared/zod';
import { templateCategories } from '../workspaces/workspace';
import { inUtc } from '../time/instant';

export const variableDefinitionSchema = z.object({
  name: z.string().check(z.regex(/^[A-Za-z0-9_]{1,64}$/, 'letters, digits and "_", at most 64 characters')),
  type: z._default(z.string().check(z.minLength(1)), 'text'),
  required: z._default(z.boolean(), true),
});

/**
 * The header's variables: TEXT its one placeholder, media its link, LOCATION latitude, longitude, name, address.
 * `parameterName` is a TEXT header's placeholder as Meta wrote it; a send names it only for a NAMED template (render.ts).
 */
const headerBindingSchema = z.object({ format: z.enum(['TEXT', 'IMAGE', 'VIDEO', 'DOCUMENT', 'LOCATION']), variables: z.array(z.string()).check(z.minLength(1), z.maxLength(4)), parameterName: z.optional(z.string()) });
/** Buttons that take a parameter, by their position in the template (or card). */
const buttonBindingsSchema = z._default(z.array(z.object({ index: z.int().check(z.gte(0), z.lte(9)), subType: z.enum(['url', 'quick_reply', 'copy_code']), variable: z.string() })), []);

/**
 * Where a synced version's variables go in WhatsApp's template components, beyond the body (whose
 * placeholders are the body variables). Imported templates have none: body only, positional.
 */
export const templateComponentsSchema = z.object({
  /** NAMED: WhatsApp takes each body and header parameter with its `parameter_name`. */
  parameterFormat: z.enum(['POSITIONAL', 'NAMED']),
  header: z.optional(headerBindingSchema),
  /** A limited-time offer with an expiration: the variable its end is sent in. */
  limitedTimeOffer: z.optional(z.object({ variable: z.string() })),
  buttons: buttonBindingsSchema,
  /** A media card carousel's cards, in order: each card's header, its body's variables in placeholder order, its buttons. */
  cards: z.optional(z.array(z.object({ header: z.optional(headerBindingSchema), body: z.array(z.string()), buttons: buttonBindingsSchema })).check(z.maxLength(10))),
});
export type TemplateComponents = z.infer<typeof templateComponentsSchema>;

/**
 * A template's or a version's id, kept and answered in lower case: every request's id is read so
 * (lambdas/http/schemas.ts `uuid()`), so one stored as a file wrote it (`08DAF716-…`, Swift's and
 * .NET's upper case) was listed but never found, by its own id or the listed one (decision 214).
 */
const templateId = () => z.uuid().check(z.toLowerCase());

export const templateVersionInputSchema = z.object({
  id: templateId(),
  version: z.int().check(z.gte(1)),
  status: z.string().check(z.minLength(1)),
  body: z.string().check(z.minLength(1), z.maxLength(4096)),
  variableDefinitions: z._default(z.array(variableDefinitionSchema).check(z.maxLength(50)), []),
  /** What the customer sees; defaults to the body with its placeholders. */
  customerPreview: z.optional(z.string()),
  creditCostPerSend: z.int().check(z.gte(0)),
  createdAt: z.iso.datetime({ offset: true }),
  readyAt: z.optional(z.iso.datetime({ offset: true })),
  disabledAt: z.optional(z.iso.datetime({ offset: true })),
  components: z.optional(templateComponentsSchema),
  /** Synced versions: a digest of Meta's components; with the category, what makes a version new. */
  contentDigest: z.optional(z.string()),
  /** Synced versions whose content has parts a send cannot fill (status UNSUPPORTED, decision 143). */
  unsupportedParts: z.optional(z.array(z.string())),
  /** Synced versions: Meta's category when the version was made; it set creditCostPerSend. */
  category: z.optional(z.enum(templateCategories)),
});

/**
 * The versions a template keeps: with the template and its event, within a transaction's 100 items
 * (template-repository.ts). A sync that adds one more lets the oldest superseded one go.
 */
export const MAX_TEMPLATE_VERSIONS = 90;

/**
 * What a template's versions may weigh together, as JSON: the template item holds them all, and
 * DynamoDB takes an item of 400 KB at most. A 10-card carousel with a 1 024-character body is about
 * 5 KB a version, so 90 of them would not fit; the rest of the item is far under the margin left.
 */
export const MAX_TEMPLATE_VERSIONS_BYTES = 300_000;

/** The versions' weight as MAX_TEMPLATE_VERSIONS_BYTES counts it. */
export const versionsBytes = (versions: readonly TemplateVersion[]): number => Buffer.byteLength(JSON.stringify(versions));

/**
 * A template as imported from the seed file or the admin CLI. `providerName` and `language` are
 * what the WhatsApp Cloud API needs to send it, and what a later sync from the WhatsApp Business
 * Management API would fill in.
 */
export const templateInputSchema = z.object({
  id: templateId(),
  // A synced template's is `name (language)`: Meta's name may have 512 characters, its language 15.
  displayName: z.string().check(z.minLength(1), z.maxLength(530)),
  status: z.string().check(z.minLength(1)),
  providerName: z.string().check(z.minLength(1), z.maxLength(512)),
  language: z.string().check(z.minLength(2), z.maxLength(15)),
  versions: z.array(templateVersionInputSchema).check(z.minLength(1), z.maxLength(MAX_TEMPLATE_VERSIONS)),
  /** Synced templates: Meta's template id. */
  providerTemplateId: z.optional(z.string()),
  /** WhatsApp's category (synced, or given on import); only MARKETING sends honour an opt-out; absent means not marketing. */
  category: z.optional(z.enum(templateCategories)),
  /**
   * Synced templates: when the status, and the category, last changed by a webhook of Meta's (its
   * entry's `time`). An older webhook, re-delivered late, changes neither (decision 183). A
   * template a sync marked DELETED: when the list that no longer had it was asked for (decision 199).
   */
  statusChangedAt: z.optional(z.iso.datetime({ offset: true })),
  categoryChangedAt: z.optional(z.iso.datetime({ offset: true })),
  /**
   * Synced templates: when the content held was asked of the Graph API (our clock). A sync whose
   * list was asked for earlier is older news and changes nothing (decision 188).
   */
  contentReadAt: z.optional(z.iso.datetime({ offset: true })),
});

/**
 * A template as it may be written: within the weight a template item holds too. Checked on a write
 * only: an item stored before the limit still reads, and a read does not serialise every version.
 */
export const storableTemplateSchema = templateInputSchema.check(
  z.refine((template) => versionsBytes(template.versions) <= MAX_TEMPLATE_VERSIONS_BYTES, {
    message: `at most ${MAX_TEMPLATE_VERSIONS_BYTES} bytes of versions (as JSON): a template item holds them all`,
    path: ['versions'],
  }),
);

export type TemplateInput = z.input<typeof templateInputSchema>;
export type Template = z.infer<typeof templateInputSchema>;
export type TemplateVersion = z.infer<typeof templateVersionInputSchema>;

/**
 * Where a list of templates gives an id a second time, a template's or a version's (a version id
 * names one version in its workspace: a preview finds it by that id alone), with its path in the
 * list. A seed file and a template file are refused for any, before anything is written. The ids
 * are compared as parsed, in lower case: `7B0C…` and `7b0c…` are one id.
 */
export function repeatedTemplateIds(templates: readonly Pick<Template, 'id' | 'versions'>[]): { path: (string | number)[]; message: string }[] {
  const seen = new Set<string>();
  const repeated: { path: (string | number)[]; message: string }[] = [];
  const once = (key: string, id: string, path: (string | number)[]) => {
    if (seen.has(key)) repeated.push({ path, message: `"${id}" is given twice` });
    seen.add(key);
  };
  templates.forEach((template, t) => {
    once(`template ${template.id}`, template.id, [t, 'id']);
    template.versions.forEach(({ id }, v) => once(`version ${id}`, id, [t, 'versions', v, 'id']));
  });
  return repeated;
}

/** Only APPROVED templates are listed or sendable (docs/api.md#templates). */
export const isListable = (template: Template): boolean => template.status === 'APPROVED';

/** Meta stopped the template for a while (paused) or for good (disabled): a send is 422 template_not_ready. */
export const isOnHold = (template: Template): boolean => template.status === 'PAUSED' || template.status === 'DISABLED';

/** A synced version whose content and category Meta no longer holds (decision 146): readable, never sent. */
export const SUPERSEDED = 'SUPERSEDED';

/**
 * At most MAX_TEMPLATE_VERSIONS, of at most MAX_TEMPLATE_VERSIONS_BYTES, the superseded ones with
 * the lowest numbers let go first: a template Meta edits monthly passes 90 in years (a long carousel
 * passes the bytes in months), and its new content must still be stored and sent. A version let go
 * answers a preview 404, as one an import drops (its pointer stays). Content too heavy to keep even
 * alone is not stored (upsertSyncedTemplate's check). Every conditional save applies it too, so a
 * template stored heavier before the byte limit is brought within it by its next change.
 */
export function keptVersions(versions: TemplateVersion[]): TemplateVersion[] {
  const lettable = versions.filter((version) => version.status === SUPERSEDED).sort((a, b) => a.version - b.version);
  let [kept, bytes] = [versions, versionsBytes(versions)];
  for (const version of lettable) {
    if (kept.length <= MAX_TEMPLATE_VERSIONS && bytes <= MAX_TEMPLATE_VERSIONS_BYTES) break;
    kept = kept.filter((other) => other.id !== version.id);
    // Its JSON and the comma before it: the list's is counted once, not again for each version let go.
    bytes -= versionsBytes([version]) - 1;
  }
  return kept;
}

/**
 * The version that stands for the template now: for a synced template the one Meta holds (every
 * other is SUPERSEDED), for an imported one the newest. None when every version is superseded:
 * Meta holds content this API could not store (docs/api.md#templates-from-whatsapp), and no stored
 * content may stand for it.
 */
export const currentVersion = (template: Template): TemplateVersion | undefined =>
  template.versions.filter((version) => version.status !== SUPERSEDED).reduce<TemplateVersion | undefined>((a, b) => (!a || b.version > a.version ? b : a), undefined);

const templateVersionResourceSchema = z.object({
  id: z.guid(),
  version: z.int().check(z.gte(1)),
  status: z.string(),
  variableDefinitions: z.array(z.object({ name: z.string(), type: z.string(), required: z.boolean() })),
  customerPreview: z.string(),
  creditCostPerSend: z.int().check(z.gte(0)),
  createdAt: z.iso.datetime({ offset: true }),
  readyAt: z.optional(z.iso.datetime({ offset: true })),
  disabledAt: z.optional(z.iso.datetime({ offset: true })),
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
    // Stored as a template file gave them (a WIB file's `+07:00`), answered in UTC as every time is.
    createdAt: inUtc(version.createdAt),
    ...(version.readyAt ? { readyAt: inUtc(version.readyAt) } : {}),
    ...(version.disabledAt ? { disabledAt: inUtc(version.disabledAt) } : {}),
  };
}

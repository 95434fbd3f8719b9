import * as z from '../../shared/zod';
import { NotFoundError, ValidationError } from '../../shared/errors';
import type { Store } from '../../shared/store';
import { someNames } from '../../shared/unicode-text';
import { isListable, toTemplateResource, type TemplateResource } from './template';
import { getTemplate, getTemplateVersion, listTemplates } from './template-repository';
import { checkVariables, renderBody } from './render';

/** The workspace's APPROVED templates in the contract's shape. */
export async function listApprovedTemplates(workspaceId: string, store?: Store): Promise<TemplateResource[]> {
  const templates = await listTemplates(workspaceId, store);
  return templates.filter(isListable).map(toTemplateResource);
}

/** One APPROVED template; unknown, foreign and unapproved ids are the same 404. */
export async function getApprovedTemplate(workspaceId: string, templateId: string, store?: Store): Promise<TemplateResource> {
  const template = await getTemplate(workspaceId, templateId, store);
  if (!template || !isListable(template)) throw new NotFoundError('Template');
  return toTemplateResource(template);
}

/** The body of POST /v1/message-templates/{templateVersionId}/preview (docs/api.md#preview-a-template). */
export const templatePreviewSchema = z.object({ templateVersionId: z.guid(), preview: z.string() });
export type TemplatePreview = z.output<typeof templatePreviewSchema>;

export interface PreviewVariable {
  name: string;
  value: string;
}

/**
 * Renders a version of an APPROVED template with the given values. Names must be defined by the
 * version and given once; every required one must be given.
 */
export async function previewTemplateVersion(
  workspaceId: string,
  versionId: string,
  variables: PreviewVariable[],
  store?: Store,
): Promise<TemplatePreview> {
  // The version's record finds its template; the template says whether it is APPROVED and still has
  // the version: a record an import dropped from its template, with the status it had then, stays.
  const pointer = await getTemplateVersion(workspaceId, versionId, store);
  const owner = pointer && (await getTemplate(workspaceId, pointer.templateId, store));
  const version = owner && isListable(owner) ? owner.versions.find(({ id }) => id === versionId) : undefined;
  if (!version) throw new NotFoundError('Template version');

  const values = new Map<string, string>();
  for (const { name, value } of variables) {
    if (values.has(name)) throw new ValidationError(`variables: "${name}" is given more than once`);
    values.set(name, value);
  }
  const { missing, unknown, malformed } = checkVariables(version, values);
  if (unknown.length) throw new ValidationError(`variables: not defined by this template version: ${someNames(unknown)}`);
  if (missing.length) throw new ValidationError(`variables: missing required variables: ${missing.join(', ')}`, 'missing_variables');
  if (malformed.length) throw new ValidationError(`variables: ${malformed.join('; ')}`);
  return { templateVersionId: versionId, preview: renderBody(version.body, values) };
}

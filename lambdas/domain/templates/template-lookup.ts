import { TtlCache } from '../../shared/ttl-cache';
import type { Store } from '../../shared/store';
import { currentVersion, type Template, type TemplateVersion } from './template';
import { getTemplate } from './template-repository';

/** Templates change rarely; a container re-reads one at most once a minute. */
export const TEMPLATE_CACHE_TTL_MS = 60_000;
const cache = new TtlCache<Template | undefined>(5_000);

export async function lookUpTemplate(workspaceId: string, templateId: string, now: Date, store?: Store): Promise<Template | undefined> {
  return cache.getOrLoad(`${workspaceId}\u0000${templateId}`, now.getTime(), () => getTemplate(workspaceId, templateId, store), () => TEMPLATE_CACHE_TTL_MS);
}

/** The version sends use: the newest READY one (docs/api.md#templates). */
export function sendableVersion(template: Template): TemplateVersion | undefined {
  return template.versions.filter((version) => version.status === 'READY').sort((a, b) => b.version - a.version)[0];
}

/** The parts a send cannot fill, when the template's current version has any (UNSUPPORTED, decision 143). */
export function unsendableParts(template: Template): string[] | undefined {
  const current = currentVersion(template);
  return current?.status === 'UNSUPPORTED' ? (current.unsupportedParts ?? []) : undefined;
}

export const clearTemplateCache = () => cache.clear();

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { syncedContent, syncedTemplateId, templateStatusOf, versionStatusOf } from '../../../lambdas/domain/templates/synced-template';
import { DEFAULT_GRAPH_API_BASE_URL } from '../../../lambdas/shared/graph-api';
import { uuidV5 } from '../../../lambdas/shared/stable-id';

describe('templates synced from WhatsApp', () => {
  it.each([
    ['APPROVED', 'APPROVED'],
    ['REINSTATED', 'APPROVED'],
    ['PENDING', 'PENDING'],
    ['IN_APPEAL', 'PENDING'],
    ['REJECTED', 'REJECTED'],
    ['PAUSED', 'PAUSED'],
    ['DISABLED', 'DISABLED'],
    ['PENDING_DELETION', 'DELETED'],
    ['ARCHIVED', 'ARCHIVED'],
    ['FLAGGED', undefined],
    ['LOCKED', undefined],
  ])('maps Meta status or event %s to %s', (meta, ours) => {
    expect(templateStatusOf(meta)).toBe(ours);
  });

  it('gives a version the status of its review: READY once approved, even while paused', () => {
    expect(['APPROVED', 'PAUSED', 'DISABLED', 'PENDING', 'REJECTED'].map(versionStatusOf)).toEqual(['READY', 'READY', 'READY', 'PENDING', 'REJECTED']);
  });

  it('ids a template by workspace, name and language, the same every time (UUID v5)', () => {
    expect(uuidV5('www.example.com', '6ba7b810-9dad-11d1-80b4-00c04fd430c8')).toBe('2ed6657d-e927-568b-95e1-2665a8aea6a2');
    expect(syncedTemplateId('ws-a', 'order_update', 'en')).toBe(syncedTemplateId('ws-a', 'order_update', 'en'));
    expect(new Set([syncedTemplateId('ws-a', 'order_update', 'en'), syncedTemplateId('ws-a', 'order_update', 'id'), syncedTemplateId('ws-b', 'order_update', 'en')]).size).toBe(3);
  });

  it('digests content, not key order: the same components are the same version', () => {
    const body = { type: 'BODY', text: 'Hi {{1}}' };
    const a = syncedContent({ parameter_format: 'POSITIONAL', components: [body] });
    const b = syncedContent({ parameter_format: 'POSITIONAL', components: [{ text: 'Hi {{1}}', type: 'BODY' }] });
    const c = syncedContent({ parameter_format: 'POSITIONAL', components: [{ type: 'BODY', text: 'Hello {{1}}' }] });
    expect(a!.contentDigest).toBe(b!.contentDigest);
    expect(c!.contentDigest).not.toBe(a!.contentDigest);
    expect(syncedContent({ parameter_format: 'POSITIONAL', components: [{ type: 'HEADER', format: 'TEXT', text: 'x' }] })).toBeUndefined();
  });
});

describe('Graph API version', () => {
  it('defaults to v26.0 in the functions and in cdk.json alike', () => {
    const cdk = JSON.parse(readFileSync(join(__dirname, '..', '..', '..', 'cdk.json'), 'utf8')) as { context: { graphApiBaseUrl: string } };
    expect(DEFAULT_GRAPH_API_BASE_URL).toBe('https://graph.facebook.com/v26.0');
    expect(cdk.context.graphApiBaseUrl).toBe(DEFAULT_GRAPH_API_BASE_URL);
  });
});

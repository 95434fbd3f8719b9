import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { OFFER_EXPIRATION_VARIABLE, syncedContent } from '../../../lambdas/domain/templates/component-reading';
import { syncedTemplateId, templateStatusOf, versionStatusOf } from '../../../lambdas/domain/templates/synced-template';
import { mergeSyncedTemplate, retiredTemplate } from '../../../lambdas/domain/templates/template-sync';
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

  it('gives a version the status of its review: READY once approved, even while paused; UNSUPPORTED with parts a send cannot fill', () => {
    expect(['APPROVED', 'PAUSED', 'DISABLED', 'PENDING', 'REJECTED'].map((status) => versionStatusOf(status, {}))).toEqual(['READY', 'READY', 'READY', 'PENDING', 'REJECTED']);
    expect(['APPROVED', 'PAUSED', 'PENDING', 'REJECTED'].map((status) => versionStatusOf(status, { unsupportedParts: ['CAROUSEL'] }))).toEqual(['UNSUPPORTED', 'UNSUPPORTED', 'PENDING', 'REJECTED']);
  });

  it.each([
    [
      'a product card carousel',
      [{ type: 'CAROUSEL', cards: [0, 1].map(() => ({ components: [{ type: 'HEADER', format: 'PRODUCT' }, { type: 'BUTTONS', buttons: [{ type: 'SPM', text: 'View' }] }] })) }],
      ['CAROUSEL HEADER PRODUCT', 'CAROUSEL SPM button'],
    ],
    ['a product header (single-product template)', [{ type: 'HEADER', format: 'PRODUCT' }], ['HEADER PRODUCT']],
    ['catalog and multi-product buttons', [{ type: 'BUTTONS', buttons: [{ type: 'CATALOG', text: 'View catalog' }, { type: 'MPM', text: 'View items' }] }], ['CATALOG button', 'MPM button']],
    ['a part Meta adds later', [{ type: 'SOMETHING_NEW' }], ['SOMETHING_NEW']],
    ['a footer, an offer without an end, and buttons that take no value', [{ type: 'FOOTER', text: 'x' }, { type: 'LIMITED_TIME_OFFER', limited_time_offer: { text: 'Hurry', has_expiration: false } }, { type: 'BUTTONS', buttons: [{ type: 'PHONE_NUMBER', text: 'Call' }, { type: 'VOICE_CALL', text: 'Call on WhatsApp' }, { type: 'FLOW', text: 'Sign up' }, { type: 'URL', text: 'Shop', url: 'https://example.com/shop' }] }], undefined],
  ])('names %s as parts a send cannot fill', (_, parts, unsupported) => {
    const content = syncedContent({ parameter_format: 'POSITIONAL', components: [{ type: 'BODY', text: 'Hi {{1}}' }, ...parts] });
    expect(content!.unsupportedParts).toEqual(unsupported);
    expect(content!.variableDefinitions).toEqual([{ name: '1', type: 'text', required: true }]);
  });

  it('refuses a template that would need more than the 50 variables a send may give, keeping none', () => {
    const card = { components: [{ type: 'HEADER', format: 'IMAGE' }, { type: 'BODY', text: '{{1}} {{2}} {{3}}' }, { type: 'BUTTONS', buttons: [{ type: 'QUICK_REPLY', text: 'More' }, { type: 'URL', text: 'Buy', url: 'https://example.com/{{1}}' }] }] };
    const content = syncedContent({ parameter_format: 'POSITIONAL', components: [{ type: 'BODY', text: 'Hi {{1}}' }, { type: 'CAROUSEL', cards: Array.from({ length: 10 }, () => card) }] });
    expect([content!.unsupportedParts, content!.variableDefinitions]).toEqual([['more than 50 variables (61)'], []]);
    const fits = syncedContent({ parameter_format: 'POSITIONAL', components: [{ type: 'BODY', text: 'Hi {{1}}' }, { type: 'CAROUSEL', cards: Array.from({ length: 8 }, () => card) }] });
    expect([fits!.unsupportedParts, fits!.variableDefinitions.length, fits!.components!.cards!.length]).toEqual([undefined, 49, 8]);
  });

  it('reads an offer with an end as one more required variable, sent in limitedTimeOffer', () => {
    const content = syncedContent({ parameter_format: 'POSITIONAL', components: [{ type: 'LIMITED_TIME_OFFER', limited_time_offer: { text: 'Hurry', has_expiration: true } }, { type: 'BODY', text: 'Hi {{1}}' }] });
    expect(content!.variableDefinitions).toEqual([
      { name: '1', type: 'text', required: true },
      { name: OFFER_EXPIRATION_VARIABLE, type: 'timestamp_ms', required: true },
    ]);
    expect(content!.components).toEqual({ parameterFormat: 'POSITIONAL', limitedTimeOffer: { variable: 'offer_expiration_time_ms' }, buttons: [] });
  });

  it('reads a version it stored before again as this release reads it: an offer’s end becomes a variable, and the sync saves it', () => {
    const graph = { id: '1054283442389574', name: 'offer', language: 'en_US' };
    const content = syncedContent({ parameter_format: 'POSITIONAL', components: [{ type: 'LIMITED_TIME_OFFER', limited_time_offer: { has_expiration: true } }, { type: 'BODY', text: 'Hi {{1}}' }] })!;
    const state = { id: syncedTemplateId('ws-a', 'offer', 'en_US'), graph, status: 'APPROVED', category: 'MARKETING' as const, content, creditCostPerSend: 2 };
    const { template: fresh } = mergeSyncedTemplate(undefined, state, new Date('2026-11-01T00:00:00Z'));
    // As an earlier release stored it: the body's variable only, no offer binding.
    const earlier = { ...fresh, versions: [{ ...fresh.versions[0]!, variableDefinitions: [{ name: '1', type: 'text', required: true }], components: { parameterFormat: 'POSITIONAL' as const, buttons: [] } }] };

    const again = mergeSyncedTemplate(earlier, state, new Date('2026-11-02T00:00:00Z'));
    expect(again.change).toBe('updated');
    expect(again.template).toEqual(fresh);
    expect(mergeSyncedTemplate(fresh, state, new Date('2026-11-02T00:00:00Z')).change).toBe('unchanged');
  });

  describe('a synced template Meta’s whole list no longer has (decision 199)', () => {
    const content = syncedContent({ parameter_format: 'POSITIONAL', components: [{ type: 'BODY', text: 'Hi {{1}}' }] })!;
    const graph = { id: '1054283442389574', name: 'order_update', language: 'en' };
    const { template: synced } = mergeSyncedTemplate(
      undefined,
      { id: syncedTemplateId('ws-a', 'order_update', 'en'), graph, status: 'APPROVED', category: 'UTILITY', content, creditCostPerSend: 1, contentReadAt: '2026-11-01T00:00:00.000Z' },
      new Date('2026-11-01T00:00:00Z'),
    );
    const listedFrom = new Date('2026-11-01T01:00:00Z');
    const now = new Date('2026-11-01T01:00:05Z');

    it('is DELETED, its status marked as changed when the list was asked for; its versions stay as they are', () => {
      expect(retiredTemplate('ws-a', synced, listedFrom, now)).toEqual({ ...synced, status: 'DELETED', statusChangedAt: '2026-11-01T01:00:00.000Z' });
    });

    it.each([
      ['imported or seeded: its id is not the one a sync gives its name and language', { ...synced, id: '7b0c5c3e-0000-4000-8000-000000000001' }],
      ['imported under the synced id, without Meta’s id', { ...synced, providerTemplateId: undefined }],
      ['of another workspace’s name and language', synced, 'ws-b'],
      ['already DELETED', { ...synced, status: 'DELETED' }],
      ['read from the Graph API after the list was asked for (approved while it was read)', { ...synced, contentReadAt: '2026-11-01T01:00:01.000Z' }],
      ['changed by a webhook from a minute before the list was asked for, or later', { ...synced, status: 'PAUSED', statusChangedAt: '2026-11-01T00:59:30.000Z' }],
      ['recategorised by a webhook from then', { ...synced, categoryChangedAt: '2026-11-01T01:00:00.000Z' }],
    ])('stays as it is when %s', (_, template, workspaceId = 'ws-a') => {
      expect(retiredTemplate(workspaceId, template, listedFrom, now)).toBeUndefined();
    });

    it('is DELETED after a webhook older than the list’s minute, and after a read time a clock ahead wrote', () => {
      expect(retiredTemplate('ws-a', { ...synced, status: 'PAUSED', statusChangedAt: '2026-11-01T00:58:59.000Z' }, listedFrom, now)).toMatchObject({ status: 'DELETED' });
      expect(retiredTemplate('ws-a', { ...synced, contentReadAt: '2026-11-01T01:10:00.000Z' }, listedFrom, now)).toMatchObject({ status: 'DELETED' });
    });
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

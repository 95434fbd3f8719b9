import { isStopPromotionsReply } from '../../../lambdas/domain/workspaces/marketing-opt-out';
import { readPreference } from '../../../lambdas/domain/providers/whatsapp-webhook';

describe('a "Stop promotions" tap', () => {
  it('is a button reply whose text or payload is the button label, in any case', () => {
    expect(isStopPromotionsReply({ type: 'button', text: 'Stop promotions', payload: 'Stop promotions' })).toBe(true);
    expect(isStopPromotionsReply({ type: 'button', text: 'STOP PROMOTIONS' })).toBe(true);
    // The business may set its own payload on the button; the label still says what was tapped.
    expect(isStopPromotionsReply({ type: 'button', text: 'Stop promotions', payload: 'unsubscribe-nov' })).toBe(true);
    expect(isStopPromotionsReply({ type: 'button', text: 'Berhenti', payload: ' stop Promotions ' })).toBe(true);
  });

  it('is not any other button, nor a text that says the same words', () => {
    expect(isStopPromotionsReply({ type: 'button', text: 'Track order', payload: 'track' })).toBe(false);
    expect(isStopPromotionsReply({ type: 'button', text: 'Stop promotions please' })).toBe(false);
    expect(isStopPromotionsReply({ type: 'button' })).toBe(false);
    expect(isStopPromotionsReply({ type: 'text', text: 'Stop promotions' })).toBe(false);
    expect(isStopPromotionsReply({ type: 'interactive', text: 'Stop promotions', payload: 'Stop promotions' })).toBe(false);
  });
});

describe('a marketing preference from WhatsApp’s user_preferences webhook', () => {
  const preference = (fields: Record<string, unknown>) => readPreference({ wa_id: '6281234567890', detail: 'User requested to stop marketing messages', category: 'marketing_messages', value: 'stop', timestamp: 1767225600, ...fields });

  it('reads stop and resume, its timestamp given as a number (Meta’s reference) or a string (its other webhooks)', () => {
    expect(preference({})).toEqual({ ok: true, value: { phone: '6281234567890', preference: 'stop', occurredAt: '2026-01-01T00:00:00.000Z' } });
    expect(preference({ value: 'resume', timestamp: '1767225601' })).toEqual({ ok: true, value: { phone: '6281234567890', preference: 'resume', occurredAt: '2026-01-01T00:00:01.000Z' } });
  });

  it('skips another category or value, and a customer named by user id alone, as unknown; a shape it cannot read as malformed', () => {
    expect(preference({ category: 'offers_and_announcements' })).toMatchObject({ ok: false, reason: 'unknown_preference' });
    expect(preference({ value: 'snooze' })).toMatchObject({ ok: false, reason: 'unknown_preference' });
    expect(preference({ wa_id: undefined, user_id: 'ID.1234567' })).toMatchObject({ ok: false, reason: 'unknown_preference', detail: 'no wa_id: opt-outs are kept by number' });
    expect(preference({ timestamp: 'yesterday' })).toMatchObject({ ok: false, reason: 'malformed_preference' });
    expect(preference({ category: undefined })).toMatchObject({ ok: false, reason: 'malformed_preference' });
  });
});

import { isStopPromotionsReply } from '../../../lambdas/domain/workspaces/marketing-opt-out';

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

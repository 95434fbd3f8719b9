import type { Dispatch } from '../../../lambdas/domain/messages/dispatch';
import { pricingChange } from '../../../lambdas/domain/messages/dispatch-repository';

/** Meta repeats a message's pricing on each status: only one that says something new is written (decision 152). */
describe('a dispatch’s pricing change', () => {
  const kept = { billable: true, category: 'utility', pricingModel: 'PMP', type: 'free_customer_service' };
  const dispatch = { dispatchId: '3f2b0c1e-5d6a-4b7c-8d9e-0f1a2b3c4d5e', sequence: 4, pricing: kept } as unknown as Dispatch;
  const now = '2026-10-01T00:00:00.000Z';
  const at = '2026-09-30T23:59:00.000Z';

  it('writes nothing for the same pricing again', () => {
    expect(pricingChange(dispatch, { ...kept }, at, now)).toBeUndefined();
  });

  it('replaces a pricing that differs only in type (Meta charges what it had called free)', () => {
    const change = pricingChange(dispatch, { ...kept, type: 'regular' }, at, now);
    expect(change?.after).toMatchObject({ pricing: { ...kept, type: 'regular' }, sequence: 5 });
    expect(change?.write).toMatchObject({ Update: { ExpressionAttributeValues: { ':pricing': { ...kept, type: 'regular' }, ':pricedAt': at } } });
  });

  it('writes nothing for a pricing from a status older than the kept one’s, and holds the write to one no later than its own', () => {
    const priced = { ...dispatch, pricedAt: at };
    expect(pricingChange(priced, { ...kept, type: 'regular' }, '2026-09-30T23:58:59.000Z', now)).toBeUndefined();
    expect(pricingChange(priced, { ...kept, type: 'regular' }, at, now)?.write).toMatchObject({ Update: { ConditionExpression: 'attribute_exists(pk) AND (attribute_not_exists(pricedAt) OR pricedAt <= :pricedAt)' } });
  });

  it('writes a first pricing', () => {
    expect(pricingChange({ ...dispatch, pricing: null }, kept, at, now)?.after.pricing).toEqual(kept);
  });
});

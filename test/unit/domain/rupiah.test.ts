import { rupiah } from '../../../lambdas/shared/rupiah';

describe('rupiah: an amount to the sen, as a bill rounds it (decision 168)', () => {
  it.each([
    [0.125, 0.13],
    [0.145, 0.15],
    [1.005, 1.01],
    [2.675, 2.68],
    [0.1 + 0.2, 0.3],
    [150, 150],
    [0.124999, 0.12],
  ])('%p is %p', (value, expected) => expect(rupiah(value)).toBe(expected));

  it('rounds a negative amount as its positive one, so a take-back cancels what its dispatch added', () => {
    for (const value of [0.125, 0.145, 1.005, 0.3]) expect(rupiah(-value)).toBe(-rupiah(value));
  });
});

import { TtlCache } from '../../../lambdas/shared/ttl-cache';

describe('TtlCache', () => {
  it('keeps a value for its TTL, and a TTL of 0 forgets what the key held', () => {
    const cache = new TtlCache<string | undefined>();
    cache.set('number', 'ws-a', 60_000, 0);
    expect(cache.get('number', 59_999)).toBe('ws-a');
    expect(cache.get('number', 60_000)).toBeUndefined();

    cache.set('number', 'ws-a', 60_000, 0);
    // The number is unbound now: nothing is kept, and the former owner is not left behind.
    cache.set('number', undefined, 0, 1);
    expect(cache.get('number', 2)).toBeUndefined();
  });
});

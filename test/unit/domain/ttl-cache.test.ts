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

  /** A load the test resolves when it chooses. */
  const deferred = () => {
    let resolve!: (value: string) => void;
    const promise = new Promise<string>((settle) => (resolve = settle));
    return { promise, resolve };
  };

  it('does not keep a load that was under way when the cache was cleared or the key forgotten', async () => {
    const cache = new TtlCache<string>();
    for (const forget of [() => cache.clear(), () => cache.delete('key')]) {
      const before = deferred();
      const loaded = cache.getOrLoad('key', 0, () => before.promise, () => 60_000);
      // resetContainerCaches() between tests, or a write that makes the value stale.
      forget();
      before.resolve('stale');
      expect(await loaded).toBe('stale');
      expect(cache.get('key', 1)).toBeUndefined();
    }
  });

  it('shares a load started after a clear with later callers, whatever the load from before does', async () => {
    const cache = new TtlCache<string>();
    const before = deferred();
    void cache.getOrLoad('key', 0, () => before.promise, () => 60_000);
    cache.clear();
    const after = deferred();
    const first = cache.getOrLoad('key', 0, () => after.promise, () => 60_000);
    before.resolve('stale');
    await before.promise;
    let loads = 0;
    const second = cache.getOrLoad('key', 0, () => (loads++, Promise.resolve('another')), () => 60_000);
    after.resolve('fresh');
    expect([await first, await second, loads]).toEqual(['fresh', 'fresh', 0]);
    expect(cache.get('key', 1)).toBe('fresh');
  });
});


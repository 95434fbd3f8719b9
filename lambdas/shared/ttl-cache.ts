/**
 * A small per-container cache: values are trusted for `ttlMs`, then read again. Bounded so a
 * container cannot grow without limit; when full, the oldest entry makes room.
 */
export class TtlCache<V> {
  private readonly entries = new Map<string, { value: V; until: number }>();
  private readonly loading = new Map<string, Promise<V>>();

  constructor(private readonly maxEntries = 10_000) {}

  get(key: string, nowMs: number): V | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.until <= nowMs) {
      this.entries.delete(key);
      return undefined;
    }
    return entry.value;
  }

  /** Keeps `value` for `ttlMs`; a TTL of 0 keeps nothing, and forgets what the key held. */
  set(key: string, value: V, ttlMs: number, nowMs: number): void {
    if (ttlMs <= 0) {
      this.delete(key);
      return;
    }
    if (this.entries.size >= this.maxEntries && !this.entries.has(key)) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(key, { value, until: nowMs + ttlMs });
  }

  /**
   * The cached value, or `load()`'s, cached for `ttlMs(value)`. Callers that miss while a load of
   * the key is under way share it: the records of one batch, taken together, make one read. A load
   * the key was forgotten during (`delete`, `clear`) answers its callers but is not kept: what it
   * read may be what the forgetting was for.
   */
  getOrLoad(key: string, nowMs: number, load: () => Promise<V>, ttlMs: (value: V) => number): Promise<V> {
    const cached = this.entries.get(key);
    if (cached && cached.until > nowMs) return Promise.resolve(cached.value);
    const pending = this.loading.get(key);
    if (pending) return pending;
    const current = () => this.loading.get(key) === loaded;
    const loaded: Promise<V> = load()
      .then((value) => {
        if (current()) this.set(key, value, ttlMs(value), nowMs);
        return value;
      })
      .finally(() => {
        if (current()) this.loading.delete(key);
      });
    this.loading.set(key, loaded);
    return loaded;
  }

  /** Forgets what the key held, and a load of it under way. */
  delete(key: string): void {
    this.entries.delete(key);
    this.loading.delete(key);
  }

  clear(): void {
    this.entries.clear();
    this.loading.clear();
  }
}

/**
 * A small per-container cache: values are trusted for `ttlMs`, then read again. Bounded so a
 * container cannot grow without limit; when full, the oldest entry makes room.
 */
export class TtlCache<V> {
  private readonly entries = new Map<string, { value: V; until: number }>();

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

  set(key: string, value: V, ttlMs: number, nowMs: number): void {
    if (ttlMs <= 0) return;
    if (this.entries.size >= this.maxEntries && !this.entries.has(key)) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(key, { value, until: nowMs + ttlMs });
  }

  /** The cached value, or `load()`'s, cached for `ttlMs(value)`. */
  async getOrLoad(key: string, nowMs: number, load: () => Promise<V>, ttlMs: (value: V) => number): Promise<V> {
    const cached = this.entries.get(key);
    if (cached && cached.until > nowMs) return cached.value;
    const value = await load();
    this.set(key, value, ttlMs(value), nowMs);
    return value;
  }

  clear(): void {
    this.entries.clear();
  }
}

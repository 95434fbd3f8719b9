/**
 * Merges streams that each come newest first (pages of items, ordered by `orderOf` descending)
 * into one stream newest first, reading each source only as far as the merge needs: an item is
 * placed once every source that may still hold a newer one has shown its next item. Used where
 * items written before a key change are read beside the new ones and a page must stream (the
 * report list's tag links, decision 102, and the workspace's sent entries, decision 104).
 */
export async function* mergeNewestFirst<T>(sources: AsyncIterable<T[]>[], orderOf: (item: T) => string): AsyncIterable<T[]> {
  const streams = sources.map((source) => ({ pages: source[Symbol.asyncIterator](), buffer: [] as T[], next: 0, done: false }));
  const drained = (stream: (typeof streams)[number]) => stream.next >= stream.buffer.length;
  try {
    for (;;) {
      await Promise.all(
        streams.map(async (stream) => {
          while (drained(stream) && !stream.done) {
            const page = await stream.pages.next();
            if (page.done) stream.done = true;
            else [stream.buffer, stream.next] = [page.value, 0];
          }
        }),
      );
      const page: T[] = [];
      // Every source either shows its next item or has none left, until one that may hold more runs dry.
      while (streams.every((stream) => !drained(stream) || stream.done)) {
        let newest: (typeof streams)[number] | undefined;
        for (const stream of streams) {
          if (!drained(stream) && (!newest || orderOf(stream.buffer[stream.next]!) > orderOf(newest.buffer[newest.next]!))) newest = stream;
        }
        if (!newest) break;
        page.push(newest.buffer[newest.next++]!);
      }
      if (!page.length) return;
      yield page;
    }
  } finally {
    await Promise.all(streams.map(async (stream) => void (await stream.pages.return?.())));
  }
}

/** Each page of a stream mapped item by item, as it comes. */
export async function* mapPages<T, U>(pages: AsyncIterable<T[]>, map: (item: T) => U): AsyncIterable<U[]> {
  for await (const page of pages) yield page.map(map);
}

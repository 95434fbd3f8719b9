import { mergeNewestFirst } from '../../../lambdas/shared/merge-newest-first';

/** A source newest first in the given pages, recording how many pages were asked for and whether it was closed. */
function source(pages: string[][]) {
  const seen = { pages: 0, closed: false };
  async function* stream(): AsyncIterable<string[]> {
    try {
      for (const page of pages) {
        seen.pages += 1;
        yield page;
      }
    } finally {
      seen.closed = true;
    }
  }
  return { stream: stream(), seen };
}

const all = async (pages: AsyncIterable<string[]>) => {
  const items: string[] = [];
  for await (const page of pages) items.push(...page);
  return items;
};

describe('mergeNewestFirst', () => {
  it('interleaves sources newest first, whatever their page sizes, and keeps an empty one out of the way', async () => {
    const a = source([['9', '7'], ['4'], ['2', '1']]);
    const b = source([['8'], ['6', '5', '3']]);
    const empty = source([]);
    expect(await all(mergeNewestFirst([a.stream, b.stream, empty.stream], (item) => item))).toEqual(['9', '8', '7', '6', '5', '4', '3', '2', '1']);
  });

  it('reads a source only as far as the items taken need, and closes every source when the reader stops', async () => {
    const a = source([['9', '8'], ['2'], ['1']]);
    const b = source([['7'], ['3']]);
    const taken: string[] = [];
    for await (const page of mergeNewestFirst([a.stream, b.stream], (item) => item)) {
      taken.push(...page);
      if (taken.length >= 3) break;
    }
    expect(taken.slice(0, 3)).toEqual(['9', '8', '7']);
    // 7 is placed once a's next item (2) shows it is newer; neither source's last page is read.
    expect([a.seen.pages, b.seen.pages]).toEqual([2, 1]);
    expect([a.seen.closed, b.seen.closed]).toEqual([true, true]);
  });
});

import { decodeCursor, encodeCursor } from '../../../lambdas/domain/conversations/cursor';

const key = { pk: 'WS#ws-a#CONV#1', sk: 'MSG#2026-01-01T00:00:00.000Z#m1' };

describe('pagination cursors', () => {
  it('round-trips the key for the scope it was made for', async () => {
    const cursor = await encodeCursor(key, 'ws-a|history|1');
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    await expect(decodeCursor(cursor!, 'ws-a|history|1')).resolves.toEqual(key);
  });

  it('has no cursor when there is nothing more', async () => {
    expect(await encodeCursor(undefined, 'ws-a|history|1')).toBeNull();
  });

  it.each([
    ['another workspace', 'ws-b|history|1'],
    ['another conversation', 'ws-a|history|2'],
    ['another query', 'ws-a|conversations'],
  ])('refuses a cursor reused for %s with 422', async (_, scope) => {
    const cursor = await encodeCursor(key, 'ws-a|history|1');
    await expect(decodeCursor(cursor!, scope)).rejects.toMatchObject({ status: 422, message: 'query.cursor: not a cursor this request can use' });
  });

  it('refuses a modified cursor with 422', async () => {
    const cursor = (await encodeCursor(key, 'ws-a|history|1'))!;
    const [payload, signature] = cursor.split('.');
    const forged = Buffer.from(JSON.stringify({ k: { ...key, pk: 'WS#ws-b#CONV#1' }, s: 'ws-a|history|1' })).toString('base64url');
    for (const tampered of [`${forged}.${signature}`, `${payload}.${signature!.slice(1)}`, `${payload}x.${signature}`, 'garbage', `${cursor}.extra`]) {
      await expect(decodeCursor(tampered, 'ws-a|history|1')).rejects.toMatchObject({ status: 422 });
    }
  });
});

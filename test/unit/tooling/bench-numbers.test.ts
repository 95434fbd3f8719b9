import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { meetsTarget, ratioNumbers, valueNumbers, verdictOf, type Row } from '../../../bench/harness';

describe("a benchmark row's numbers", () => {
  it('hold a ratio to its target from the side the target names', () => {
    expect(ratioNumbers('ms', 13, 10, 1.3)).toEqual({ unit: 'ms', measured: 13, baseline: 10, ratio: 1.3, target: 1.3, passes: 'ratio <= target' });
    expect(meetsTarget(ratioNumbers('ms', 13, 10, 1.3))).toBe(true);
    expect(meetsTarget(ratioNumbers('ms', 14, 10, 1.3))).toBe(false);
    expect(meetsTarget(ratioNumbers('sends/s', 80, 100, 0.8, 'at least'))).toBe(true);
    expect(meetsTarget(ratioNumbers('sends/s', 79, 100, 0.8, 'at least'))).toBe(false);
  });

  it('hold a value in its own unit to its target, a baseline beside it changing nothing', () => {
    expect(valueNumbers('USD per million messages', 14.5, 15, { baseline: 29 })).toEqual({
      unit: 'USD per million messages',
      measured: 14.5,
      baseline: 29,
      ratio: 0.5,
      target: 15,
      passes: 'measured <= target',
    });
    expect(verdictOf(valueNumbers('USD per million messages', 14.5, 15, { baseline: 29 }))).toBe('met');
    expect(verdictOf(valueNumbers('USD per million messages', 15.5, 15))).toBe('missed');
    expect(verdictOf(valueNumbers('functions', 22, 33, { bound: 'at least' }))).toBe('missed');
    expect(verdictOf(valueNumbers('Scans', 0, 0))).toBe('met');
  });

  it('have no target on a row that only reports', () => {
    const reported = valueNumbers('MiB', 175, null);
    expect(reported).toEqual({ unit: 'MiB', measured: 175, baseline: null, ratio: null, target: null, passes: null });
    expect(meetsTarget(reported)).toBeNull();
    expect(verdictOf(reported)).toBe('reported');
  });
});

// What tools reading bench/results.json rely on, checked on the file the last full run wrote.
describe('bench/results.json', () => {
  const { rows } = JSON.parse(readFileSync(join(__dirname, '..', '..', '..', 'bench', 'results.json'), 'utf8')) as { rows: Row[] };

  it.each(rows.map((row) => [row.id, row] as const))('row %s carries its figure as numbers that agree with its verdict', (_id, row) => {
    const { numbers } = row;
    expect(Object.keys(numbers).sort()).toEqual(['baseline', 'measured', 'passes', 'ratio', 'target', 'unit']);
    expect(typeof numbers.unit).toBe('string');
    expect(Number.isFinite(numbers.measured)).toBe(true);
    if (numbers.baseline === null) expect(numbers.ratio).toBeNull();
    else expect(numbers.ratio).toBeCloseTo(numbers.measured / numbers.baseline, 9);
    expect(numbers.target === null).toBe(row.verdict === 'reported');
    expect(numbers.passes === null).toBe(row.verdict === 'reported');
    // A verdict may ask more than its numbers (no failed send), never less.
    if (row.verdict === 'met') expect(meetsTarget(numbers)).toBe(true);
  });
});

import { describe, expect, it } from 'vitest';
import { HEAP_GROWING_PERCENT, heapGrowthFlag } from '../../src/channels/cli/heap-growth.js';

describe('heap growth of the long-running commands', () => {
  it('bounds how far the heap grows between full collections', () => {
    expect(heapGrowthFlag([])).toBe(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
    expect(heapGrowthFlag(['--enable-source-maps'])).toBe('--heap-growing-percent=100');
  });

  it('leaves the choice to a --heap-growing-percent given to node', () => {
    expect(heapGrowthFlag(['--heap-growing-percent=300'])).toBeNull();
  });
});

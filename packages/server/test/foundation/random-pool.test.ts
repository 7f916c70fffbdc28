import { describe, expect, it } from 'vitest';
import { pooledRandomBytes, randomByte } from '../../src/platform/values/random-pool.js';

describe('pooled random bytes', () => {
  it('hands each byte out once, across refills of the pool', () => {
    // 2,000 draws of 16 bytes walk through the 4 KB pool ~8 times: no two 128-bit draws may repeat.
    const seen = new Set<string>();
    for (let i = 0; i < 2000; i++) {
      const draw = pooledRandomBytes(16);
      expect(draw.length).toBe(16);
      seen.add(draw.toString('hex'));
    }
    expect(seen.size).toBe(2000);
  });

  it('gives each caller a copy: changing one draw changes no other', () => {
    const first = pooledRandomBytes(32);
    const kept = Buffer.from(first);
    first.fill(0);
    const second = pooledRandomBytes(32);
    expect(second.equals(Buffer.alloc(32))).toBe(false);
    expect(kept.equals(Buffer.alloc(32))).toBe(false);
  });

  it('spreads bytes evenly (each value about 1/256 of 256,000 draws)', () => {
    const counts = new Array<number>(256).fill(0);
    for (let i = 0; i < 256_000; i++) counts[randomByte()]!++;
    // Each count is Binomial(256000, 1/256): mean 1,000, standard deviation ~31.6; 7 sigma apart.
    expect(Math.min(...counts)).toBeGreaterThan(780);
    expect(Math.max(...counts)).toBeLessThan(1220);
  });

  it('draws large counts straight from the CSPRNG', () => {
    const big = pooledRandomBytes(8192);
    expect(big.length).toBe(8192);
    expect(new Set(big).size).toBeGreaterThan(200);
  });
});

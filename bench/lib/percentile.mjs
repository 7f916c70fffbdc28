/** The p-th percentile (0-100) of ascending `sorted` values, nearest rank; 0 for no values. */
export function percentile(sorted, p) {
  return sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

/** p50, p90, p99 and max of ascending `sorted` values, for a bench's latency report. */
export function latencySummary(sorted) {
  return {
    p50: percentile(sorted, 50),
    p90: percentile(sorted, 90),
    p99: percentile(sorted, 99),
    max: sorted.at(-1),
  };
}

/** The p-th percentile (0-100) of `values` in any order (sorts a copy). */
export const percentileOf = (values, p) =>
  percentile(
    [...values].sort((a, b) => a - b),
    p,
  );

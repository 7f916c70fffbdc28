/** The p-th percentile (0-100) of ascending `sorted` values, nearest rank; 0 for no values. */
export function percentile(sorted, p) {
  return sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

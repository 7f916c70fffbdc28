// The targets, checked per row. Ratios are server req/s over baseline req/s, same run.
export const TARGETS = {
  peakRssMb: 200,
  mixedP99Ms: 25,
  soakGrowthMb: 10, // "no growth": the last 10 s average within 10 MB of the first 10 s
};

/** The targets a measured row misses (empty when all are met). */
export function missedTargets(row) {
  const missed = [];
  if (row.targetRatio != null && row.ratio != null && row.ratio < row.targetRatio)
    missed.push(`ratio < ${row.targetRatio}`);
  if (row.targetP99Ms != null && row.p99 >= row.targetP99Ms) missed.push(`p99 >= ${row.targetP99Ms} ms`);
  if (row.peakRssMb != null && row.peakRssMb >= TARGETS.peakRssMb)
    missed.push(`RSS >= ${TARGETS.peakRssMb} MB`);
  if (row.errors + row.non2xx > 0) missed.push('errors');
  return missed;
}

export function soakVerdict(soak) {
  return soak.growthMb < TARGETS.soakGrowthMb ? [] : [`growth >= ${TARGETS.soakGrowthMb} MB`];
}

/**
 * The number of runs of a property: `n`, scaled by PROPERTY_RUNS_SCALE when it is set (the mutation configs
 * set it, so each mutant is judged in seconds; a property that kills a mutant at all does so within the
 * first tenth of its runs nearly always, and every surviving mutant is re-checked at full runs).
 */
export const runs = (n: number): number => {
  const scale = Number(process.env["PROPERTY_RUNS_SCALE"] ?? "1")
  return Number.isFinite(scale) && scale > 0 && scale < 1 ? Math.max(20, Math.ceil(n * scale)) : n
}

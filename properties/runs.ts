/**
 * The number of runs of a property: `n`, scaled by PROPERTY_RUNS_SCALE when it is set to a number between 0
 * and 1 (`npm run test:fast` sets 0.1; the mutation configs set it, so each mutant is judged in seconds; a
 * property that kills a mutant at all does so within the first tenth of its runs nearly always, and every
 * surviving mutant is re-checked at full runs). A scaled count is at least 20 and never more than `n`.
 * Every fast-check property (properties/ and the specs' own) takes its numRuns from here.
 */
export const runs = (n: number): number => {
  const scale = Number(process.env["PROPERTY_RUNS_SCALE"] ?? "1")
  return Number.isFinite(scale) && scale > 0 && scale < 1 ? Math.min(n, Math.max(20, Math.ceil(n * scale))) : n
}

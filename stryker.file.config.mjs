// A per-file mutation run (scripts/mutation.mjs, `npm run mutation:file -- <file>`): the file named by
// MUTATE, against the pure tests named by MUTATION_TESTS (vitest.mutation-fast.config.ts), with the
// properties' runs scaled down (PROPERTY_RUNS_SCALE), incremental (the results of unchanged mutants and
// tests are re-used from reports/mutation/<file>.incremental.json, ignored by git).
import base from "./stryker.config.mjs"

const file = process.env.MUTATE
if (!file) throw new Error("MUTATE names the file to mutate (scripts/mutation.mjs sets it)")
const slug = file.replace(/[/.]/g, "_")

/** @type {import("@stryker-mutator/api/core").PartialStrykerOptions} */
export default {
  ...base,
  vitest: { configFile: "vitest.mutation-fast.config.ts", related: false },
  mutate: [file],
  concurrency: Number(process.env.MUTATION_CONCURRENCY ?? 1),
  // Static mutants (module-level constants, the regexes, the exported arrows themselves) run every test, so
  // they are slow; MUTATION_IGNORE_STATIC=1 skips them for a quick pass. The score reported counts them.
  ignoreStatic: process.env.MUTATION_IGNORE_STATIC === "1",
  incremental: true,
  incrementalFile: `reports/mutation/${slug}.incremental.json`,
  jsonReporter: { fileName: `reports/mutation/${slug}.json` },
  reporters: ["clear-text", "progress-append-only", "json"],
  timeoutMS: 20000,
  tempDirName: `.stryker-tmp-${slug}`,
  // Two per-file runs may be under way: neither copies the other's sandbox (or the reports) into its own.
  ignorePatterns: [".stryker-tmp*", "reports", "dist", ".agentic"]
}

// StrykerJS 9.6.1 (`npm run mutation`): the mutation score of the approval gate (core/gate/**), the edit
// planner and the gutter check, against the tests in vitest.mutation.config.ts. Not part of `npm test`
// or CI's critical path: it runs the tests once per mutant. The score per file is printed at the end
// (clear-text reporter) and written to reports/mutation/ (ignored by git).
/** @type {import("@stryker-mutator/api/core").PartialStrykerOptions} */
export default {
  testRunner: "vitest",
  vitest: { configFile: "vitest.mutation.config.ts", related: false },
  mutate: ["core/gate/**/*.ts", "core/tools/edit/planner.ts", "core/tools/edit/planOperations.ts", "core/tools/edit/virtualTree.ts", "core/text/gutter.ts"],
  coverageAnalysis: "perTest",
  reporters: ["clear-text", "progress-append-only", "json"],
  jsonReporter: { fileName: "reports/mutation/mutation.json" },
  clearTextReporter: { allowColor: false, logTests: false, reportScoreTable: true },
  concurrency: 2,
  timeoutMS: 60000,
  timeoutFactor: 2,
  tempDirName: ".stryker-tmp",
  cleanTempDir: "always",
  thresholds: { high: 95, low: 80, break: null }
}

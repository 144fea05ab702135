// `npm run mutation:quick`: the pure rules of the gate (core/gate/records.ts, core/gate/preprocess.ts) and the
// gutter check (core/text/gutter.ts) against the pure tests in vitest.mutation-quick.config.ts; the
// figure the closing note of issue 20 reports. `npm run mutation` is the whole scope the issue names.
import base from "./stryker.config.mjs"

/** @type {import("@stryker-mutator/api/core").PartialStrykerOptions} */
export default {
  ...base,
  vitest: { configFile: "vitest.mutation-quick.config.ts", related: false },
  mutate: ["core/gate/records.ts", "core/gate/preprocess.ts", "core/text/gutter.ts"],
  jsonReporter: { fileName: "reports/mutation/mutation-quick.json" },
  timeoutMS: 30000
}

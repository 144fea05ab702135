/**
 * The test set a per-file mutation run (`npm run mutation:file -- <file>`, scripts/mutation.mjs) runs against
 * each mutant: pure, in-process tests only (no child process, no real host), in worker threads, with the
 * properties' runs scaled down by PROPERTY_RUNS_SCALE. MUTATION_TESTS (comma-separated globs) picks the tests
 * for the file under mutation; the default is the pure set of the gate and the gutter check.
 */
import { defineConfig } from "vitest/config"

const DEFAULT = [
  "properties/approval-lifecycle.test.ts",
  "properties/decide-table.test.ts",
  "properties/preprocess-roundtrip.test.ts",
  "spec/kernel/preprocess-effects.test.ts",
  "spec/kernel/preprocess-edges.test.ts",
  "properties/block-escaping.test.ts",
  "properties/edit-gutter.test.ts",
  "properties/operation-hash.test.ts",
  "spec/verify/model.test.ts",
  "spec/edit/gutter.test.ts",
  "spec/edit/planner-examples.test.ts",
  "spec/kernel/gutter.test.ts",
  "spec/kernel/records-rules.test.ts",
  "spec/kernel/records-schema.test.ts",
  "spec/kernel/preprocess-texts.test.ts",
  "spec/kernel/hash-prompt.test.ts",
  "spec/kernel/hash-install-pure.test.ts",
  "spec/kernel/prompt-schema.test.ts",
  "spec/kernel/gate-pure.test.ts",
  "spec/kernel/key-pure.test.ts"
]

export default defineConfig({
  test: {
    include: process.env["MUTATION_TESTS"] ? process.env["MUTATION_TESTS"].split(",") : DEFAULT,
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: "threads",
    globalSetup: ["spec/support/globalSetup.ts"],
    setupFiles: ["properties/mutation-setup.ts"]
  }
})

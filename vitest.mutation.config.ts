/**
 * The test set StrykerJS runs against each mutant of core/gate/**, the edit planner and the gutter check
 * (`npm run mutation`): the properties and specs that exercise them, in process.
 */
import { defineConfig } from "vitest/config"

export default defineConfig({
  test: {
    include: [
      "properties/approval-lifecycle.test.ts",
      "properties/decide-table.test.ts",
      "properties/operation-hash.test.ts",
      "properties/preprocess-roundtrip.test.ts",
      "properties/block-escaping.test.ts",
      "properties/edit-gutter.test.ts",
      "properties/edit-rollback.test.ts",
      "properties/edit-recovery.test.ts",
      "spec/kernel/gate.test.ts",
      "spec/kernel/preprocessor.test.ts",
      "spec/kernel/preprocess-effects.test.ts",
      "spec/kernel/preprocess-edges.test.ts",
      "spec/kernel/preprocess-texts.test.ts",
      "spec/kernel/plan.test.ts",
      "spec/edit/gating.test.ts",
      "spec/edit/workspace_edit.test.ts",
      "spec/edit/planner-examples.test.ts",
      "spec/edit/gutter.test.ts",
      "spec/kernel/gutter.test.ts",
      "spec/kernel/hash-prompt.test.ts",
      "spec/kernel/prompt-schema.test.ts",
      "spec/kernel/gate-pure.test.ts",
      "spec/kernel/key-pure.test.ts",
      "spec/verify/model.test.ts",
      "spec/verify/model-based.test.ts"
    ],
    testTimeout: 120_000,
    hookTimeout: 60_000,
    pool: "forks",
    globalSetup: ["spec/support/globalSetup.ts"]
  }
})

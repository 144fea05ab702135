/** The pure, in-process tests `npm run mutation:quick` runs against each mutant (seconds per mutant, not minutes). */
import { defineConfig } from "vitest/config"

export default defineConfig({
  test: {
    include: [
      "properties/approval-lifecycle.test.ts",
      "properties/decide-table.test.ts",
      "properties/preprocess-roundtrip.test.ts",
      "properties/block-escaping.test.ts",
      "properties/edit-gutter.test.ts",
      "spec/verify/model.test.ts"
    ],
    testTimeout: 60_000,
    pool: "forks",
    globalSetup: ["spec/support/globalSetup.ts"]
  }
})

import { defineConfig } from "vitest/config"

export default defineConfig({
  test: {
    include: ["spec/**/*.test.ts", "properties/**/*.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: "forks",
    // Workspace keys go to a temporary XDG_STATE_HOME (spec/support/globalSetup.ts), not the real ~/.local/state.
    globalSetup: ["spec/support/globalSetup.ts"]
  }
})

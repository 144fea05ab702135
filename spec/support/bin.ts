/**
 * How a spec starts the command: one place, so every spec that spawns the bin or the test entry runs the same
 * build. In a vitest run of the `slow` project that is the bundle built once for the run (spec/support/bundle.ts,
 * about a fifth of a tsx start's CPU time); with AW_SPEC_SOURCES=1, or outside such a run, it is the sources
 * through tsx, as `node bin/agentic-workspace.js` runs them in a checkout.
 */
import * as path from "node:path"

/** The environment variable naming the bundle's package folder for the test processes (spec/support/bundleSetup.ts). */
export const BUNDLE_ENV = "AW_SPEC_BUNDLE"

const REPO = path.resolve(new URL("../..", import.meta.url).pathname)

/** The bundle's package folder of this run, if it has one. */
export const bundleDir = (): string | undefined => {
  const dir = process.env[BUNDLE_ENV]
  return dir === undefined || dir === "" ? undefined : dir
}

/** A command line to spawn. */
export interface Start {
  readonly command: string
  readonly args: Array<string>
}

/** `agentic-workspace ARGS`: the bundle's bin (which runs its dist/, as an installed package's does), or the repository's. */
export const binStart = (args: ReadonlyArray<string>): Start => ({
  command: process.execPath,
  args: [path.join(bundleDir() ?? REPO, "bin/agentic-workspace.js"), ...args]
})

/**
 * The test entry (the real CLI and `mcp` verb with the gated test tool, spec/support/test-entry.ts) with ARGS:
 * the bundle's dist/test-entry.js, or the source through tsx.
 */
export const testEntryStart = (args: ReadonlyArray<string>): Start => {
  const dir = bundleDir()
  return {
    command: process.execPath,
    args:
      dir === undefined
        ? ["--import", "tsx", path.join(REPO, "spec/support/test-entry.ts"), ...args]
        : [path.join(dir, "dist/test-entry.js"), ...args]
  }
}

// Two vitest projects (docs/DEVELOPING.md, "Tests"):
//
// - `fast` (`npm run test:fast`, the inner loop): the pure core, the properties (at a tenth of their runs under
//   that script's PROPERTY_RUNS_SCALE), the memory host. Its files start no child process, browser, git or
//   server (spec/kernel/test-projects.test.ts checks what they import).
// - `slow`: everything else: Chromium, bubblewrap, the package build and install, crash and kill, the hardening
//   races, the MCP tooling, git, the Workspaces receipts property. A new spec file lands here unless it matches
//   FAST_SPECS; when unsure, leave it here.
//
// A file is `fast` when it is a property (properties/, `*.test.ts`) not in SLOW_PROPERTIES, or a spec matching
// FAST_SPECS: named `*-pure.test.ts` or `pure.test.ts`, or listed by name. `npm test` runs both projects in
// full. Every file runs in its own forked process and up to FORKS files run at once (most slow files wait on
// child processes, git, Chromium and I/O rather than the CPU), so a file shares nothing with another: ports
// from listen(0), its own temp dirs, no write into the repository (package.test.ts alone builds dist/).
import { configDefaults, defineConfig } from "vitest/config"
import { BaseSequencer, type TestSpecification } from "vitest/node"

/** Properties that drive git or another child process: slow however few their runs. */
export const SLOW_PROPERTIES = ["properties/workspaces-receipts.test.ts", "properties/git-candidates.test.ts"]

/** The spec files of `fast`: the pure-suffix names, and the files listed by name. */
export const FAST_SPECS = [
  "spec/**/*-pure.test.ts",
  "spec/**/pure.test.ts",
  "spec/adapters/mcp-annotations.test.ts",
  "spec/adapters/mcp-table.test.ts",
  "spec/adapters/schemas-for-models.test.ts",
  "spec/edit/diff-window.test.ts",
  "spec/edit/gutter.test.ts",
  "spec/edit/planner-examples.test.ts",
  "spec/kernel/contract-types.test.ts",
  "spec/kernel/description-modules.test.ts",
  "spec/kernel/gated-set.test.ts",
  "spec/kernel/grouped.test.ts",
  "spec/kernel/gutter.test.ts",
  "spec/kernel/hash-prompt.test.ts",
  "spec/kernel/preprocess-edges.test.ts",
  "spec/kernel/preprocess-effects.test.ts",
  "spec/kernel/preprocess-texts.test.ts",
  "spec/kernel/sizes.test.ts",
  "spec/kernel/prompt-schema.test.ts",
  "spec/kernel/records-rules.test.ts",
  "spec/kernel/records-schema.test.ts",
  "spec/kernel/settings.test.ts",
  "spec/kernel/test-projects.test.ts",
  "spec/vcs/parse.test.ts",
  "spec/verify/approvals-doc.test.ts",
  "spec/verify/fuzz.test.ts",
  "spec/verify/model.test.ts"
]

/**
 * The longest files, longest first (per-file durations of a full run, `npx vitest run --reporter=json`; docs/
 * DEVELOPING.md): they start before every other file, so a run never ends waiting on one of them started last.
 * Without this a clean checkout (no vitest cache) would order files by size, and the longest file is a short one.
 */
export const LONGEST_FIRST = [
  "spec/workspaces/workspaces.test.ts",
  "spec/workspaces/output-shapes.test.ts",
  "spec/workspaces/cli.test.ts",
  "properties/workspaces-receipts.test.ts",
  "spec/workspaces/prs.test.ts",
  "spec/workspaces/kill.test.ts",
  "spec/hardening/commit-locks.test.ts",
  "spec/verify/cli.test.ts",
  "spec/hardening/state-swap.test.ts",
  "spec/adapters/package.test.ts",
  "spec/browser/sessions.test.ts",
  "spec/hardening/symlink-swap.test.ts",
  "spec/verify/cli-model.test.ts",
  "spec/edit/crash.test.ts",
  "spec/vcs/gating.test.ts",
  "properties/git-candidates.test.ts",
  "spec/agent/gating.test.ts",
  "spec/sandbox/approvals.test.ts",
  "spec/code/sandbox.test.ts",
  "spec/sandbox/sandbox.test.ts"
]

/** Vitest's own order (failed files first, then by the cached durations or by size), with LONGEST_FIRST in front. */
class LongestFirst extends BaseSequencer {
  override async sort(files: Array<TestSpecification>): Promise<Array<TestSpecification>> {
    const rank = (file: TestSpecification) => {
      const at = LONGEST_FIRST.findIndex((name) => file.moduleId.endsWith(`/${name}`))
      return at < 0 ? LONGEST_FIRST.length : at
    }
    return [...(await super.sort(files))].sort((a, b) => rank(a) - rank(b))
  }
}

/** Files run at once: VITEST_FORKS, else 4 (2 cores; the slow files mostly wait). */
const FORKS = Number(process.env["VITEST_FORKS"] ?? 4)

export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: "forks",
    poolOptions: { forks: { maxForks: FORKS, minForks: 1 } },
    // Workspace keys go to a temporary XDG_STATE_HOME (spec/support/globalSetup.ts), not the real ~/.local/state.
    globalSetup: ["spec/support/globalSetup.ts"],
    sequence: { sequencer: LongestFirst },
    projects: [
      {
        extends: true,
        test: {
          name: "fast",
          include: ["properties/**/*.test.ts", ...FAST_SPECS],
          exclude: [...configDefaults.exclude, ...SLOW_PROPERTIES]
        }
      },
      {
        extends: true,
        test: {
          name: "slow",
          // The bundle the slow specs start instead of the sources (spec/support/bin.ts): built once per run.
          globalSetup: ["spec/support/bundleSetup.ts"],
          include: ["spec/**/*.test.ts", ...SLOW_PROPERTIES],
          exclude: [...configDefaults.exclude, ...FAST_SPECS]
        }
      }
    ]
  }
})

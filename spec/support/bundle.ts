/**
 * The bundle the specs start instead of the sources: the command as the package ships it (bin/ beside a
 * dist/ built the way scripts/build.mjs builds dist/cli.js), plus the test entry (spec/support/test-entry.ts,
 * the real CLI and `mcp` verb with the gated test tool). Starting the sources through tsx costs about three
 * CPU seconds a start (tsx loads and transforms every module); one parsed bundle costs a fraction of that,
 * and the slow specs start the bin hundreds of times.
 *
 * The folder is laid out like the installed package (`<tmp>/node_modules/agentic-workspace/`), so the bin's own
 * rule runs dist/ there, as it does for an installed package (docs/PACKAGE.md), and so does every bin the command
 * itself starts (a sub-agent worker re-runs the bin beside its code):
 *
 *     package.json                 {"type": "module"}
 *     bin/agentic-workspace.js     a copy of the repository's bin
 *     dist/cli.js                  the command, npm dependencies bundled in (minified, CLI_EXTERNAL left out)
 *     dist/command-<hash>.cjs      the command once more, the CommonJS file `call` runs with a V8 code cache
 *     dist/test-entry.js           the test entry, same build (shared chunks)
 *     dist/browserSupervisor.js, dist/review-static/   the runtime files the command checks at its start
 *     node_modules                 a link to the repository's node_modules (the external packages, the language servers)
 *
 * The vitest global setup of the `slow` project (spec/support/bundleSetup.ts) builds it once per run (again on
 * each rerun in watch mode) into a temporary folder and names that folder in AW_SPEC_BUNDLE; spec/support/bin.ts
 * turns it into the command a spec starts. What must match the shipped command (CLI_EXTERNAL, the CommonJS banner,
 * the plugin that leaves Ajv out) is imported from scripts/bundleParts.mjs, which scripts/build.mjs uses too.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import * as esbuild from "esbuild"
import { buildCallCommand, CLI_EXTERNAL, noAjv, REQUIRE_BANNER } from "../../scripts/bundleParts.mjs"

/** The options every build of the bundle shares (scripts/build.mjs `common`, without the metafile). */
const common = (repo: string, dist: string): esbuild.BuildOptions => ({
  absWorkingDir: repo,
  outdir: dist,
  bundle: true,
  format: "esm",
  platform: "node",
  target: "node20",
  chunkNames: "chunk-[hash]",
  logLevel: "warning",
  legalComments: "none",
  banner: { js: REQUIRE_BANNER }
})

/** Builds the bundle into the package folder `dir` (created when missing) from the repository at `repo`. */
export const buildBundle = async (repo: string, dir: string): Promise<void> => {
  const dist = path.join(dir, "dist")
  fs.rmSync(dist, { recursive: true, force: true })
  fs.mkdirSync(path.join(dir, "bin"), { recursive: true })
  fs.writeFileSync(path.join(dir, "package.json"), '{ "name": "agentic-workspace", "type": "module" }\n')
  fs.copyFileSync(path.join(repo, "bin/agentic-workspace.js"), path.join(dir, "bin/agentic-workspace.js"))
  if (!fs.existsSync(path.join(dir, "node_modules")))
    fs.symlinkSync(path.join(repo, "node_modules"), path.join(dir, "node_modules"), "dir")
  // `call` runs its CommonJS build (adapters/node/commandCache.ts), as in the package.
  const callCommand = await buildCallCommand(esbuild, { repo, dist })
  await Promise.all([
    esbuild.build({
      ...common(repo, dist),
      entryPoints: {
        cli: path.join(repo, "adapters/node/main.ts"),
        "test-entry": path.join(repo, "spec/support/test-entry.ts")
      },
      splitting: true,
      plugins: [noAjv],
      external: CLI_EXTERNAL,
      minify: true,
      define: { __AW_CALL_COMMAND__: JSON.stringify(callCommand.name) }
    }),
    esbuild.build({
      ...common(repo, dist),
      entryPoints: { browserSupervisor: path.join(repo, "adapters/node/browserSupervisor.ts") }
    })
  ])
  fs.cpSync(path.join(repo, "adapters/review/review-static"), path.join(dist, "review-static"), { recursive: true })
}

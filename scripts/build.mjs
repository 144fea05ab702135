#!/usr/bin/env node
/**
 * `npm run build` (and `prepack`): the package's dist/.
 *
 * - esbuild bundles the Node entries into one flat folder, ESM for Node 20 (source maps only with
 *   `--sourcemap`: the package ships none), code split so
 *   every dynamic `import()` (the MCP SDK for `mcp`, minisearch for semantic_search, a host) stays a lazy
 *   chunk. Two builds: the command (dist/cli.js) with its npm dependencies bundled in, for start-up; the
 *   embedding API (dist/index.js, dist/mcp.js) with the packages an embedder shares external (API_EXTERNAL), resolved from the tarball's
 *   dependencies, so an embedder's `effect` and MCP SDK are the same instances as ours.
 * - The worker and supervisor scripts are plain JS and are copied beside the bundle: the code that spawns
 *   them resolves them with `new URL("./…", import.meta.url)`, which in a flat dist/ is dist/ itself.
 * - tsc (emitDeclarationOnly, the same compiler as `npm run typecheck`, no extra dependency) writes the
 *   `.d.ts` of the public API under dist/types/, and the relative `.ts` specifiers of the sources are
 *   rewritten to `.js` so any consumer's TypeScript resolves them.
 * - `call` runs the command from a second build of it, one CommonJS file (dist/command-<hash>.cjs), through
 *   vm.Script with a V8 code cache (adapters/node/commandCache.ts); the other verbs import the ESM chunks.
 * - dist/meta-cli.json and dist/meta-api.json are esbuild's metafiles: spec/adapters/package.test.ts reads
 *   them to prove what each entry loads before its first dynamic import.
 */
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import * as esbuild from "esbuild"
import { buildCallCommand, CLI_EXTERNAL, noAjv, REQUIRE_BANNER } from "./bundleParts.mjs"

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..")
const DIST = path.join(REPO, "dist")

/** The bundle's entries: output name -> source. */
export const ENTRIES = {
  cli: "adapters/node/main.ts",
  index: "adapters/embed/index.ts",
  mcp: "adapters/embed/mcp.ts",
  verify: "adapters/embed/verify.ts"
}

/** What the command leaves to node_modules (scripts/bundleParts.mjs, shared with the specs' bundle). */
export { CLI_EXTERNAL }

/** The browser session supervisor (its own process), built to dist/browserSupervisor.js. */
export const SUPERVISOR_ENTRY = "adapters/node/browserSupervisor.ts"

/** Plain scripts that run as their own process or worker, copied beside the bundle. */
export const SCRIPTS = ["adapters/node/searchWorker.js", "adapters/node/supervisor.mjs"]

/** The review page's static files, copied to dist/review-static/. */
export const REVIEW_STATIC = "adapters/review/review-static"

/** `--sourcemap` (or AGENTIC_WORKSPACE_SOURCEMAP=1): write source maps beside the bundles; the package ships none. */
const SOURCEMAP = process.argv.includes("--sourcemap") || process.env.AGENTIC_WORKSPACE_SOURCEMAP === "1"

/**
 * What the embedding API leaves to node_modules: the packages whose instances an embedder shares with us
 * (effect, whose types the declarations name; the MCP SDK, whose servers attachToMcpServer takes: an optional
 * peer dependency, since only agentic-workspace/mcp loads it and its embedder has it already; fast-check, named
 * by agentic-workspace/verify's types) and the browser driver. Everything else (@effect/platform and
 * @effect/platform-node's client, undici, parse5, minimatch, ...) is bundled, so it is a devDependency and the
 * installed package does not carry its tree (issue 31: the install size halved). @effect/platform's types are
 * still named by the declarations of a host's services (HttpClient): an optional peer, for an embedder who
 * writes a host layer; its tags are keyed by name, so that embedder's layer satisfies our bundled copy.
 */
export const API_EXTERNAL = [
  "effect",
  "effect/*",
  "@modelcontextprotocol/sdk",
  "@modelcontextprotocol/sdk/*",
  "fast-check",
  ...CLI_EXTERNAL
]

fs.rmSync(DIST, { recursive: true, force: true })
fs.mkdirSync(DIST, { recursive: true })

const common = {
  absWorkingDir: REPO,
  outdir: DIST,
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  // Source maps are opt-in (`npm run build -- --sourcemap`): they were 14.6 MB of a 19 MB unpacked tarball.
  sourcemap: SOURCEMAP,
  chunkNames: "chunk-[hash]",
  metafile: true,
  logLevel: "warning",
  legalComments: "none"
}
const entries = (names) => Object.fromEntries(names.map((name) => [name, path.join(REPO, ENTRIES[name])]))

// `call`'s command once more, as one CommonJS file the entry runs with a V8 code cache (adapters/node/commandCache.ts,
// docs/PACKAGE.md "The CLI's start"); its name carries its text's hash, so a cache is never used for another build.
const callCommand = await buildCallCommand(esbuild, { repo: REPO, dist: DIST })

// The command: its npm dependencies bundled in. Loading effect's ~300 ESM files from node_modules costs
// most of a second per start; one parsed bundle does not. CommonJS dependencies get `require`, `__filename` and `__dirname`.
// The MCP server passes its own jsonSchemaValidator: noAjv (scripts/bundleParts.mjs) leaves Ajv out.
const cli = await esbuild.build({
  ...common,
  entryPoints: entries(["cli"]),
  plugins: [noAjv],
  external: CLI_EXTERNAL,
  // Minified: parsing and compiling the bundle is most of a start; the source maps keep stack traces readable.
  minify: true,
  define: { __AW_CALL_COMMAND__: JSON.stringify(callCommand.name) },
  banner: { js: REQUIRE_BANNER }
})
// The embedding API: npm packages external (the tarball's dependencies), so an embedder's effect and
// MCP SDK are the same instances as ours.
const api = await esbuild.build({
  ...common,
  entryPoints: entries(["index", "mcp", "verify"]),
  external: API_EXTERNAL,
  banner: { js: REQUIRE_BANNER }
})
const result = {
  metafile: {
    inputs: { ...api.metafile.inputs, ...cli.metafile.inputs },
    outputs: { ...api.metafile.outputs, ...cli.metafile.outputs }
  }
}
fs.writeFileSync(path.join(DIST, "meta-cli.json"), JSON.stringify(cli.metafile))
fs.writeFileSync(path.join(DIST, "meta-api.json"), JSON.stringify(api.metafile))
for (const script of SCRIPTS) fs.copyFileSync(path.join(REPO, script), path.join(DIST, path.basename(script)))
// The review page's static files (no build step: plain HTML, CSS and JS), beside the bundle as the server resolves them.
fs.cpSync(path.join(REPO, REVIEW_STATIC), path.join(DIST, "review-static"), { recursive: true })
// The browser session supervisor is TypeScript (it shares core/tools/browser/egress.ts): one ESM file beside
// the bundle, dist/browserSupervisor.js, which NodeBrowser runs with plain node (tsx is a dev dependency,
// absent from an installed package). Its own process: its npm imports (undici, effect) are bundled in.
await esbuild.build({
  ...common,
  splitting: false,
  metafile: false,
  banner: { js: REQUIRE_BANNER },
  entryPoints: { browserSupervisor: path.join(REPO, SUPERVISOR_ENTRY) }
})

// Declarations of the public API (and what it names), then `.ts` specifiers -> `.js`.
const TYPES = path.join(DIST, "types")
execFileSync(
  process.execPath,
  [path.join(REPO, "node_modules/typescript/bin/tsc"), "-p", path.join(REPO, "tsconfig.build.json")],
  { cwd: REPO, stdio: "inherit" }
)
const rewrite = (dir) => {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const file = path.join(dir, entry.name)
    if (entry.isDirectory()) rewrite(file)
    else if (entry.name.endsWith(".d.ts")) {
      const text = fs.readFileSync(file, "utf8")
      const fixed = text.replace(/((?:from|import)\s*\(?\s*["'])(\.{1,2}\/[^"']+?)\.ts(["'])/g, "$1$2.js$3")
      if (fixed !== text) fs.writeFileSync(file, fixed)
    }
  }
}
rewrite(TYPES)

const size = Object.entries(result.metafile.outputs)
  .filter(([file]) => file.endsWith(".js"))
  .reduce((sum, [, output]) => sum + output.bytes, 0)
process.stdout.write(
  `dist/: ${Object.keys(ENTRIES).length} entries, ${(size / 1024).toFixed(0)} KiB of JS, declarations in dist/types/\n`
)

/**
 * The parts of the command's esbuild build that scripts/build.mjs (the package's dist/) and
 * spec/support/bundle.ts (the bundle the slow specs start) must share, so the specs run the command as it is
 * shipped: what stays in node_modules, the CommonJS banner and the plugin that leaves Ajv out.
 */

/** What the command leaves to node_modules: packages too large or too dynamic to bundle (the browser driver). */
export const CLI_EXTERNAL = ["playwright-core", "chromium-bidi"]

/** CommonJS dependencies bundled into ESM get `require`, `__filename` and `__dirname` (write-file-atomic needs it). */
export const REQUIRE_BANNER = [
  'import { createRequire as __awCreateRequire } from "node:module";',
  'import { fileURLToPath as __awFileURLToPath } from "node:url";',
  "const require = __awCreateRequire(import.meta.url);",
  // write-file-atomic names its temp files after __filename.
  "const __filename = __awFileURLToPath(import.meta.url);",
  'const __dirname = __awFileURLToPath(new URL(".", import.meta.url));'
].join(" ")

/**
 * The MCP server passes its own jsonSchemaValidator (adapters/mcp/server.ts formSchemaValidator), so the SDK's
 * default Ajv provider is never constructed; with this plugin the command does not even parse Ajv.
 */
export const noAjv = {
  name: "no-ajv",
  setup(build) {
    build.onResolve({ filter: /validation\/ajv-provider\.js$/ }, (args) =>
      args.importer.includes("@modelcontextprotocol/sdk") ? { path: "ajv-provider", namespace: "no-ajv" } : undefined
    )
    build.onLoad({ filter: /.*/, namespace: "no-ajv" }, () => ({
      contents:
        'export class AjvJsonSchemaValidator { constructor() { throw new Error("agentic-workspace passes its own jsonSchemaValidator; Ajv is not bundled") } }',
      loader: "js"
    }))
  }
}

/** The module name under which the `call` bundle takes the entry's sandbox probe (adapters/node/main.ts provides it). */
export const PROBE_MODULE = "agentic-workspace:sandbox-probe"

/**
 * The `call` verb's command as one CommonJS file (adapters/node/commandCache.ts runs it through vm.Script with a
 * V8 code cache; an ES module cannot take one): adapters/node/cli.ts and all it imports, dynamic imports
 * included (as lazy `require`s: esbuild evaluates them when first imported, as the split build does), written
 * to `<dist>/command-<sha256 of the text, 16 hex>.cjs`. `import.meta.url` becomes the bundle's own URL (a
 * parameter of the wrapper). The sandbox probe is the entry's (its answer is one per process), not a copy.
 * Returns the file's name, which the entry's build defines as `__AW_CALL_COMMAND__`.
 */
export const buildCallCommand = async (esbuild, { repo, dist, minify = true, metafile = false }) => {
  const result = await esbuild.build({
    absWorkingDir: repo,
    entryPoints: [`${repo}/adapters/node/cli.ts`],
    bundle: true,
    write: false,
    outfile: `${dist}/command.cjs`,
    format: "cjs",
    platform: "node",
    target: "node20",
    minify,
    metafile,
    legalComments: "none",
    logLevel: "warning",
    external: CLI_EXTERNAL,
    // import() would need vm's experimental dynamic-import hook: each becomes a lazy require.
    supported: { "dynamic-import": false },
    define: { "import.meta.url": "__awImportMetaUrl" },
    plugins: [
      noAjv,
      {
        name: "entry-sandbox-probe",
        setup(build) {
          build.onResolve({ filter: /\/sandboxProbe\.ts$/ }, () => ({ path: PROBE_MODULE, external: true }))
        }
      }
    ]
  })
  const [output] = result.outputFiles
  // V8 keeps a script's source as one string, one byte per character only when every character is Latin-1:
  // a single other character (esbuild escapes them in strings, not inside String.raw page code) doubles the
  // 2 MB source and the copy its wrapper makes while every `call` and `mcp --root` loads it. Checked on the
  // minified build the package ships (an unminified one for profiling keeps its dependencies' comments).
  const wide = minify ? /[\u0100-\u{10ffff}]/u.exec(output.text) : null
  if (wide !== null)
    throw new Error(
      `the command bundle holds ${JSON.stringify(wide[0])} (U+${wide[0].codePointAt(0).toString(16).toUpperCase()}) near ${JSON.stringify(output.text.slice(Math.max(0, wide.index - 60), wide.index + 20))}: write it as an escape (\\u....) in the source`
    )
  const { createHash } = await import("node:crypto")
  const { mkdirSync, writeFileSync } = await import("node:fs")
  mkdirSync(dist, { recursive: true })
  const name = `command-${createHash("sha256").update(output.contents).digest("hex").slice(0, 16)}.cjs`
  writeFileSync(`${dist}/${name}`, output.contents)
  return { name, metafile: result.metafile }
}

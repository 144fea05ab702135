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

#!/usr/bin/env node
// The agentic-workspace command. The runtime picks the host: under Deno (`deno run -A bin/agentic-workspace.js`)
// the Deno host runs the TypeScript sources natively. Under Node an installed package runs the bundle in
// dist/ (built by `npm run build`, shipped by `npm pack`); a development checkout runs the sources through
// tsx, so the repository's own tests and `npx agentic-workspace` there never need a build and never run a
// stale one. AGENTIC_WORKSPACE_DIST=1 runs dist/ in a checkout too (bench:startup measures it that way);
// a checkout without tsx falls back to dist/ when it was built. The rule is in docs/PACKAGE.md.
// The verb then picks the adapter: `mcp` serves MCP (stdio or Streamable HTTP), `call`, `tools`, `approvals`,
// `accept`, `deny` are the CLI.
if (typeof globalThis.Deno !== "undefined") {
  await import("../adapters/deno/main.ts")
} else {
  // V8's heap flags for this process (docs/INSPECT.md "Memory during a search"): a young generation keeps
  // its first size instead of doubling under a search's allocation rate (the main thread's is 1 MiB); a
  // search worker's starts at 4 MiB (--min-semi-space-size is read when a heap is configured: the workers',
  // not the main thread's, which already is). The old generation grows at V8's own pace: held to half its live
  // size it collected fully every 15 or so edit previews (docs/INSPECT.md "The per-call floor"). V8 resets the growth
  // factor to 2 each time it configures a heap, so it is set again once each worker runs.
  // A one-shot verb written first (`call`, a listing, a decision) exits before its heap matters: it keeps V8's
  // defaults, whose young generation grows while the bundle loads instead of collecting every 1 MiB (about a
  // tenth of a `call`'s CPU went to those collections; docs/PACKAGE.md "Start-up").
  const ONE_SHOT = new Set(["call", "tools", "approvals", "accept", "deny", "workspaces", "host", "help"])
  if (!ONE_SHOT.has(process.argv[2])) {
    const v8 = await import("node:v8")
    v8.setFlagsFromString("--semi-space-growth-factor=1 --min-semi-space-size=4")
    process.on("worker", (worker) => worker.once("online", () => v8.setFlagsFromString("--semi-space-growth-factor=1")))
  }
  const { existsSync, realpathSync } = await import("node:fs")
  const { fileURLToPath } = await import("node:url")
  const here = realpathSync(fileURLToPath(import.meta.url))
  const bundle = new URL("../dist/cli.js", import.meta.url)
  const built = existsSync(bundle)
  const installed = here.split(/[\\/]/).includes("node_modules")
  let useDist = built && (installed || process.env.AGENTIC_WORKSPACE_DIST === "1")
  if (!useDist) {
    try {
      const { register } = await import("tsx/esm/api")
      register()
    } catch (error) {
      if (!built) {
        process.stderr.write(
          `agentic-workspace: this checkout has neither dist/ nor tsx (${error instanceof Error ? error.message.split("\n")[0] : error}). Run \`npm ci\` (development) or \`npm run build\`.\n`
        )
        process.exit(2)
      }
      useDist = true
    }
  }
  await import(useDist ? bundle.href : "../adapters/node/main.ts")
}

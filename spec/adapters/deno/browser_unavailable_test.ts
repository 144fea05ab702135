/**
 * workspace_browser on Deno: "On Deno the port may report itself unavailable, and then the tool is not
 * registered". The Deno host has no Browser service: with enableBrowser on, the tool is not listed and a
 * call fails TOOL_DISABLED naming the host and the missing service.
 */
import assert from "node:assert/strict"
import { openDenoWorkspace } from "../../../adapters/deno/host.ts"

Deno.test("deno/browser: workspace_browser is not registered on the Deno host; a call is TOOL_DISABLED naming the host and the Browser service", async () => {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "aw-deno-browser-" }))
  try {
    const opened = await openDenoWorkspace(root, { enableBrowser: true })
    assert.ok(!("_tag" in opened))
    const runtime = opened as Exclude<typeof opened, { _tag: "OpenFailure" }>
    try {
      assert.ok(!runtime.registry.list().some((tool) => tool.name === "workspace_browser"))
      const result = await runtime.call("workspace_browser", { action: "open" })
      assert.equal(result.ok, false)
      assert.equal(result.error?.code, "TOOL_DISABLED")
      assert.match(result.error?.message ?? "", /this host \(deno\)/)
      assert.match(result.error?.message ?? "", /no browser service/)
    } finally {
      await runtime.dispose()
    }
  } finally {
    await Deno.remove(root, { recursive: true })
  }
})

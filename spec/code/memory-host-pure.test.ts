/**
 * Issue 30 items 4 and 5 on a host without language servers (the memory host): rename_symbol and preview
 * `diagnostics: true` answer the same refusal as the inspect actions (TOOL_DISABLED naming the host, from
 * the port's layer that refuses, never a cast), nothing is planned or written; the same preview without the
 * flag still plans.
 */
import * as Effect from "effect/Effect"
import { afterEach, describe, expect, it } from "vitest"
import { hostLayer, startHost, type WorkspaceRuntime } from "../../core/runtime.ts"
import { makeMemoryHostFs } from "../../core/services/MemoryHostFs.ts"
import { defaultSettings } from "../../core/settings/settings.ts"

let runtime: WorkspaceRuntime | undefined
afterEach(async () => {
  await runtime?.dispose()
  runtime = undefined
})

const open = async () => {
  const memory = makeMemoryHostFs(["/ws"])
  runtime = await startHost(hostLayer({ root: "/ws", runtime: "memory", platform: "linux", fs: memory.host }), {
    ...defaultSettings,
    permissionMode: 2
  })
  const created = await runtime.call("workspace_edit", {
    action: "apply",
    operations: [{ type: "create", path: "src/a.ts", content: "export const foo = 1\n" }]
  })
  if (!created.ok) throw new Error(created.summary)
  return { runtime, memory }
}

describe("a host without language servers", () => {
  it("rename_symbol fails TOOL_DISABLED naming the host, in preview and apply; nothing is stored or written", async () => {
    const { runtime: rt, memory } = await open()
    for (const action of ["preview", "apply"]) {
      const refused = await rt.call("workspace_edit", {
        action,
        operations: [{ type: "rename_symbol", path: "src/a.ts", line: 1, column: 14, new_name: "bar" }]
      })
      expect(refused.ok, action).toBe(false)
      expect(refused.error?.code).toBe("TOOL_DISABLED")
      expect(refused.error?.message).toContain("The memory host provides no LanguageServers service")
    }
    const text = new TextDecoder().decode(await Effect.runPromise(memory.host.readFile("/ws/src/a.ts")))
    expect(text).toBe("export const foo = 1\n")
    // Only the fixture's own create transaction exists: the refused renames stored nothing.
    const listed = await rt.call("workspace_edit", { action: "list" })
    expect((listed.data as { total: number }).total).toBe(1)
  })

  it("preview diagnostics: true fails the same way; without the flag the same preview plans", async () => {
    const { runtime: rt } = await open()
    const operations = [{ type: "replace", path: "src/a.ts", search: "1", replacement: "'x'" }]
    const refused = await rt.call("workspace_edit", { action: "preview", operations, diagnostics: true })
    expect(refused.error?.code).toBe("TOOL_DISABLED")
    expect(refused.error?.message).toContain("The memory host provides no LanguageServers service")
    const planned = await rt.call("workspace_edit", { action: "preview", operations })
    expect(planned.ok).toBe(true)
  })
})

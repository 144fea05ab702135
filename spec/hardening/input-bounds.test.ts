/**
 * Issue 10 §6, "Inputs are bounded before they are decoded": JSON nested about 6,000 levels deep used to
 * give INTERNAL_ERROR (a stack overflow) and a wide wrong-typed value was echoed whole (a 240 KB envelope
 * against a 20,000-character budget). Depth is capped at 64 and size at the largest field limit plus
 * margin before decoding, echoed values are clipped to 300 characters, and every refusal fits
 * maxToolResultChars.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { ECHO_CHARS, MAX_INPUT_CHARS, MAX_INPUT_DEPTH } from "../../core/protocol/bounds.ts"
import { connectStdio, type Connected } from "../support/mcp.ts"
import { openWorkspace, type TempWorkspace } from "../support/workspace.ts"
import { runCli as runCliInProcess } from "../../adapters/cli.ts"
import { openNodeSession } from "../../adapters/node/host.ts"

const nested = (depth: number): unknown => {
  let value: unknown = "leaf"
  for (let index = 0; index < depth; index++) value = index % 2 === 0 ? [value] : { a: value }
  return value
}
/** About 240 KB of a wrong type where a string is expected. */
const wide = Array.from({ length: 40_000 }, (_, index) => index * 1000)

let ws: TempWorkspace
let small: TempWorkspace
beforeAll(async () => {
  ws = await openWorkspace({ permissionMode: 2 })
  small = await openWorkspace({ permissionMode: 2, maxToolResultChars: 1000 }, ws.dir)
})
afterAll(async () => {
  await small.runtime.dispose()
  await ws.runtime.dispose()
})

const within = (envelope: unknown, budget: number) =>
  expect(JSON.stringify(envelope).length).toBeLessThanOrEqual(budget)

describe("input bounds", () => {
  it("JSON nested 6,000 levels deep is INVALID_INPUT (not INTERNAL_ERROR) for every tool, and the envelope fits the budget", async () => {
    for (const tool of ws.runtime.registry.tools) {
      const action = Object.keys(tool.actions)[0]!
      for (const [workspace, budget] of [
        [ws, 20_000],
        [small, 1000]
      ] as const) {
        const envelope = await workspace.call(tool.name, { action, content: nested(6000) })
        expect(envelope.error?.code, `${tool.name} ${action}`).toBe("INVALID_INPUT")
        expect(envelope.error?.message).toContain(`deeper than ${MAX_INPUT_DEPTH} levels`)
        within(envelope, budget)
      }
    }
  })

  it("65 levels are refused before decoding, 64 pass to the schema (which names the field)", async () => {
    const over = await ws.call("workspace_notes", { action: "write", name: "n", content: nested(MAX_INPUT_DEPTH) })
    expect(over.error?.message).toContain("deeper than")
    const at = await ws.call("workspace_notes", { action: "write", name: "n", content: nested(MAX_INPUT_DEPTH - 2) })
    expect(at.error?.code).toBe("INVALID_INPUT")
    expect(at.error?.message).not.toContain("deeper than")
    expect(at.error?.message).toContain('field "content"')
  })

  it("a wide wrong-typed value is INVALID_INPUT naming the field, echoed at most 300 characters, within the budget", async () => {
    for (const [workspace, budget] of [
      [ws, 20_000],
      [small, 1000]
    ] as const) {
      const envelopes = await Promise.all([
        workspace.call("workspace_notes", { action: "write", name: "n", content: wide }),
        workspace.call("workspace_edit", { action: "preview", operations: wide }),
        workspace.call("workspace_inspect", { action: "read", path: wide }),
        workspace.call("workspace_notes", { action: "x".repeat(300_000) }),
        workspace.call("x".repeat(300_000), { action: "list" }),
        workspace.call("workspace_notes", {
          action: "list",
          ...Object.fromEntries(wide.slice(0, 5000).map((n) => [`f${n}`, n]))
        })
      ])
      for (const envelope of envelopes) {
        expect(envelope.error?.code).toBe("INVALID_INPUT")
        within(envelope, budget)
      }
      expect(envelopes[0]!.error?.message).toContain('field "content"')
      // No run of the echoed array longer than the clip.
      const digits = envelopes[0]!.error!.message.match(/[0-9,]+/g) ?? []
      for (const run of digits) expect(run.length).toBeLessThanOrEqual(ECHO_CHARS)
    }
  })

  it("arguments larger than the largest field limit plus margin are refused before decoding", async () => {
    const huge = await ws.call("workspace_notes", {
      action: "write",
      name: "n",
      content: "x".repeat(MAX_INPUT_CHARS + 1)
    })
    expect(huge.error?.code).toBe("INVALID_INPUT")
    expect(huge.error?.message).toContain("more than 11,000,000 characters")
    within(huge, 20_000)
  })

  it("through the CLI: a 6,000-deep argument is one INVALID_INPUT envelope, exit 1", async () => {
    let stdout = ""
    const code = await runCliInProcess(
      [
        "call",
        "workspace_notes",
        `{"action":"write","name":"x","content":${"[".repeat(6000)}${"]".repeat(6000)}}`,
        "--root",
        ws.dir
      ],
      {
        cwd: ws.dir,
        open: openNodeSession,
        stdout: (text) => (stdout += text),
        stderr: () => undefined
      }
    )
    expect(code).toBe(1)
    expect(JSON.parse(stdout)).toMatchObject({ ok: false, error: { code: "INVALID_INPUT" } })
  })

  it("through the MCP server: deep and wide arguments are INVALID_INPUT within the budget, and the server answers the next call", async () => {
    const connected: Connected = await connectStdio(ws.dir, ["permissionMode=2"])
    try {
      for (const args of [
        { action: "write", name: "x", content: nested(2000) },
        { action: "write", name: "x", content: wide }
      ]) {
        const result = await connected.client.callTool({ name: "workspace_notes", arguments: args })
        const envelope = result.structuredContent as { error: { code: string } }
        expect(envelope.error.code).toBe("INVALID_INPUT")
        within(envelope, 20_000)
      }
      const next = await connected.client.callTool({ name: "workspace_notes", arguments: { action: "list" } })
      expect((next.structuredContent as { ok: boolean }).ok).toBe(true)
    } finally {
      await connected.close()
    }
  }, 60_000)
})

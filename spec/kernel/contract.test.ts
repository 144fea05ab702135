/**
 * Issue 9, the tool contract: `confirm: "always"`, hosts as honest layers (a missing service is a
 * refusing layer, capabilities derived from the services provided), and the typed prompt kept on the
 * approval record.
 */
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as ManagedRuntime from "effect/ManagedRuntime"
import * as Schema from "effect/Schema"
import { afterEach, describe, expect, it } from "vitest"
import { decide } from "../../core/gate/records.ts"
import type { Envelope } from "../../core/protocol/envelope.ts"
import { makeRegistry } from "../../core/registry.ts"
import { capabilitiesOf, hostLayer } from "../../core/runtime.ts"
import { HostInfo } from "../../core/services/HostFs.ts"
import { makeMemoryHostFs } from "../../core/services/MemoryHostFs.ts"
import { Processes } from "../../core/services/Processes.ts"
import { defaultSettings } from "../../core/settings/settings.ts"
import { ALL_TOOLS } from "../../core/tools/index.ts"
import { defineTool, gatedAction, loadTools } from "../../core/tools/Tool.ts"
import { openWorkspace, type TempWorkspace } from "../support/workspace.ts"

// The lazy tools' actions and handlers (core/tools/Tool.ts lazyTool), read below without a runtime's start.
await loadTools(ALL_TOOLS)

const open: Array<TempWorkspace> = []
afterEach(async () => {
  for (const ws of open.splice(0)) await ws.dispose()
})

let confirmed = 0
const confirmTool = defineTool({
  name: "test_confirm",
  short: "confirm",
  description: "Test only: an action declared confirm: always.",
  actions: { act: Schema.Struct({ what: Schema.String }) },
  enabled: () => true,
  hints: { readOnlyHint: false, destructiveHint: false, openWorldHint: true, why: "test only" },
  probe: { args: {}, ok: "any" },
  handlers: {
    act: gatedAction({
      gate: "web",
      confirm: "always",
      planSchema: Schema.TaggedStruct("Act", { what: Schema.String }),
      load: (input: { readonly action: "act"; readonly what: string }) => Effect.succeed(input.what),
      plan: (_input, what) =>
        Either.right({
          _tag: "Planned" as const,
          plan: { _tag: "Act" as const, what },
          work: what,
          title: `Act on ${what}`,
          prompt: { _tag: "web" as const, url: `https://example.invalid/${what}` },
          resume: { tool: "test_confirm", arguments: { action: "act", what } }
        }),
      interpret: () => Effect.sync(() => ++confirmed),
      view: (count) => Effect.succeed({ summary: `acted (${count})` })
    })
  }
})

describe('confirm: "always" stages in every mode', () => {
  it("decide: Auto and Plan with an approved plan stage a confirm-always call; Manual rules apply to it", () => {
    const base = { allowDestructiveEdits: false, destructive: false, hash: "h", records: [] }
    expect(decide({ ...base, mode: 2 })._tag).toBe("Run")
    expect(decide({ ...base, mode: 2, confirm: "always" })._tag).toBe("Stage")
    const plan = {
      id: "plan_1",
      kind: "plan" as const,
      status: "approved" as const,
      title: "p",
      createdAt: new Date().toISOString()
    }
    expect(decide({ ...base, mode: 1, records: [plan] })._tag).toBe("Run")
    expect(decide({ ...base, mode: 1, records: [plan], confirm: "always" })._tag).toBe("Stage")
    const approved = {
      id: "approval_1",
      kind: "web" as const,
      status: "approved" as const,
      title: "a",
      createdAt: new Date().toISOString(),
      hash: "h"
    }
    expect(decide({ ...base, mode: 2, confirm: "always", records: [approved] })).toEqual({
      _tag: "Run",
      consume: "approval_1"
    })
  })

  it("through the registry in Auto mode: staged, and runs once the user accepts", async () => {
    const ws = await openWorkspace({ permissionMode: 2 }, undefined, [...ALL_TOOLS, confirmTool])
    open.push(ws)
    const staged = await ws.call("test_confirm", { action: "act", what: "x" })
    expect(staged.data).toMatchObject({
      status: "pending_approval",
      mode: "auto",
      approval: { kind: "web", title: "Act on x" }
    })
    expect(confirmed).toBe(0)
  })
})

describe("hosts are honest layers", () => {
  it("the capabilities are derived from the services a host provides", async () => {
    const { host } = makeMemoryHostFs(["/ws"])
    expect(capabilitiesOf({})).toEqual(["fs"])
    const runtime = ManagedRuntime.make(hostLayer({ root: "/ws", runtime: "deno", platform: "linux", fs: host }))
    try {
      expect((await runtime.runPromise(HostInfo)).capabilities).toEqual(["fs"])
      // The missing service is a layer that refuses clearly, never a cast over the gap.
      const refused = await runtime.runPromise(
        Effect.flip(
          Effect.flatMap(Processes, (processes) => processes.exec({ argv: ["git"], cwd: "/ws", timeoutMs: 1000 }))
        )
      )
      expect(refused).toMatchObject({ code: "TOOL_DISABLED", message: "this host (deno) has no process service" })
    } finally {
      await runtime.dispose()
    }
  })

  it('a tool whose host lacks a service is not listed; a call fails TOOL_DISABLED "this host (deno) has no process service"', async () => {
    const info = { root: "/ws", runtime: "deno" as const, platform: "linux", capabilities: ["fs"] as const }
    const registry = makeRegistry(defaultSettings, info)
    expect(registry.list().map((tool) => tool.name)).not.toContain("workspace_command")
    const envelope = await Effect.runPromise(
      registry.call("workspace_command", { action: "status", job_id: "job_1" }) as unknown as Effect.Effect<Envelope>
    )
    expect(envelope.ok).toBe(false)
    expect(envelope.error?.code).toBe("TOOL_DISABLED")
    expect(envelope.error?.message).toContain("this host (deno) has no process service")
    // Settings still decide first: switched off, the message names the settings.
    const off = makeRegistry(
      { ...defaultSettings, enableProcessExecution: false },
      { ...info, runtime: "node", capabilities: ["fs", "process"] }
    )
    const disabled = await Effect.runPromise(
      off.call("workspace_command", { action: "status", job_id: "job_1" }) as unknown as Effect.Effect<Envelope>
    )
    expect(disabled.error?.message).toContain("not registered under the current settings")
  })
})

describe("the typed prompt is what the user is asked", () => {
  it("a staged command keeps its prompt (argv and cwd) on the approval record", async () => {
    const ws = await openWorkspace({ permissionMode: 0 })
    open.push(ws)
    const staged = await ws.call("workspace_command", { action: "run", executable: "node", args: ["-e", "1"] })
    const id = (staged.data as { approval: { id: string } }).approval.id
    const records = JSON.parse(await ws.read(".agentic/approvals/state.json")).records as Array<{
      id: string
      prompt?: { _tag: string; argv: Array<string>; cwd: string }
    }>
    const prompt = records.find((record) => record.id === id)?.prompt
    expect(prompt?._tag).toBe("command")
    expect(prompt?.argv.slice(1)).toEqual(["-e", "1"])
    expect(prompt?.argv[0]).toMatch(/node$/)
    expect(prompt?.cwd).toBe("")
  })
})

// Issue 29 item 2 (the CLI's start): a tool's action Schemas and handlers load on its first call or listing
// (core/tools/Tool.ts lazyTool), so a one-shot `call` evaluates only the tool it calls. What a call answers and
// what tools/list shows must not change: a lazy tool answers and lists as the same tool defined eagerly.
import * as fs from "node:fs/promises"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { afterEach, describe, expect, it } from "vitest"
import { openNodeWorkspace } from "../../adapters/node/host.ts"
import type { WorkspaceRuntime } from "../../core/runtime.ts"
import { ALL_TOOLS } from "../../core/tools/index.ts"
import { defineTool, lazyTool, type ToolParts, toolLoaded } from "../../core/tools/Tool.ts"
import { makeTempDir } from "../support/workspace.ts"

const opened: Array<{ runtime: WorkspaceRuntime; dir: string }> = []
afterEach(async () => {
  for (const { runtime, dir } of opened.splice(0)) {
    await runtime.dispose()
    await fs.rm(dir, { recursive: true, force: true })
  }
})

const open = async (tools?: ReadonlyArray<(typeof ALL_TOOLS)[number]>, warmListing?: boolean) => {
  const dir = await makeTempDir()
  const runtime = await openNodeWorkspace(dir, {}, tools, warmListing === undefined ? {} : { warmListing })
  if ("_tag" in runtime) throw new Error(`workspace did not open: ${runtime.reason}`)
  opened.push({ runtime, dir })
  return runtime
}

const LAZY = [
  "workspace_edit",
  "workspace_plan",
  "workspace_notes",
  "workspace_command",
  "workspace_vcs",
  "workspace_tasks",
  "workspace_research",
  "workspace_browser",
  "workspace_agent"
]

// First in this file: the tools are module state, loaded once per process.
describe("the shipped tools", () => {
  it("a start for a call loads none of them; capabilities names them; a call loads only the tool it calls", async () => {
    const lazy = ALL_TOOLS.filter((tool) => LAZY.includes(tool.name))
    expect(new Set(lazy.map((tool) => tool.name))).toEqual(new Set(LAZY))
    expect(lazy.filter(toolLoaded)).toEqual([])
    const runtime = await open(undefined, false)
    const capabilities = await runtime.call("workspace_inspect", { action: "capabilities" })
    expect(capabilities.ok).toBe(true)
    expect(capabilities.summary).toContain("workspace_edit, workspace_plan, workspace_notes, workspace_command")
    expect(lazy.filter(toolLoaded)).toEqual([])
    const plan = await runtime.call("workspace_plan", { action: "current" })
    expect(plan).toMatchObject({ ok: true, operation: "plan.current" })
    expect(lazy.filter(toolLoaded).map((tool) => tool.name)).toEqual(["workspace_plan"])
    // A refused input is decoded by the loaded Schemas like any other.
    const refused = await runtime.call("workspace_notes", { action: "write", name: 7 })
    expect(refused).toMatchObject({ ok: false, error: { code: "INVALID_INPUT" } })
    expect(lazy.filter(toolLoaded).map((tool) => tool.name)).toEqual(["workspace_plan", "workspace_notes"])
  })

  it("a start that lists loads every tool, and tools/list shows each with its actions", async () => {
    const runtime = await open()
    expect(ALL_TOOLS.filter((tool) => !toolLoaded(tool))).toEqual([])
    const listed = runtime.registry.list()
    const command = listed.find((tool) => tool.name === "workspace_command")!
    expect((command.inputSchema.properties["action"] as { enum: Array<string> }).enum).toEqual([
      "run",
      "start",
      "status",
      "cancel"
    ])
  })
})

/** A small tool with two actions, its parts counted each time they load. */
const partsOf = (): ToolParts<{ readonly echo: Schema.Struct<{ text: typeof Schema.String }> }> => ({
  actions: { echo: Schema.Struct({ text: Schema.String }) },
  handlers: {
    echo: {
      gate: "none",
      run: (input) => Effect.succeed({ summary: `echo ${input.text}`, data: { text: input.text } })
    }
  }
})

const light = {
  name: "test_echo",
  short: "echo",
  description: "Echoes its text.",
  enabled: () => true,
  hints: { readOnlyHint: true, destructiveHint: false, openWorldHint: false, why: "a test tool" },
  probe: { args: { action: "echo", text: "x" }, ok: true }
} as const

describe("lazyTool", () => {
  it("loads its parts once, on the first call, and answers as the same tool defined eagerly", async () => {
    let loads = 0
    const lazy = lazyTool(light, async () => {
      loads++
      return partsOf()
    })
    const runtime = await open([...ALL_TOOLS.filter((tool) => tool.name === "workspace_inspect"), lazy], false)
    expect(loads).toBe(0)
    expect(() => lazy.actions).toThrow(/before its actions were loaded/)
    const first = await runtime.call("test_echo", { action: "echo", text: "a" })
    const second = await runtime.call("test_echo", { action: "echo", text: "b" })
    expect(loads).toBe(1)
    expect(toolLoaded(lazy)).toBe(true)
    const eager = await open([
      ...ALL_TOOLS.filter((tool) => tool.name === "workspace_inspect"),
      defineTool({ ...light, ...partsOf() })
    ])
    expect(first).toEqual(await eager.call("test_echo", { action: "echo", text: "a" }))
    expect(second).toEqual(await eager.call("test_echo", { action: "echo", text: "b" }))
    // A wrong input is refused the same way, naming the field.
    const wrong = { action: "echo", txt: "a" }
    expect(await runtime.call("test_echo", wrong)).toEqual(await eager.call("test_echo", wrong))
  })

  it("a start that lists loads it first: tools/list is the eager tool's", async () => {
    let loads = 0
    const lazy = lazyTool(light, async () => {
      loads++
      return partsOf()
    })
    const runtime = await open([lazy])
    expect(loads).toBe(1)
    const eager = await open([defineTool({ ...light, ...partsOf() })])
    expect(runtime.registry.list()).toEqual(eager.registry.list())
  })

  it("a load that fails is the call's INTERNAL_ERROR, and the next call loads again", async () => {
    let loads = 0
    const lazy = lazyTool(light, async () => {
      loads++
      if (loads === 1) throw new Error("the module did not load")
      return partsOf()
    })
    const runtime = await open([lazy], false)
    const failed = await runtime.call("test_echo", { action: "echo", text: "a" })
    expect(failed).toMatchObject({ ok: false, error: { code: "INTERNAL_ERROR" } })
    expect(failed.error?.message).toContain("the module did not load")
    expect(toolLoaded(lazy)).toBe(false)
    const next = await runtime.call("test_echo", { action: "echo", text: "a" })
    expect(next).toMatchObject({ ok: true, summary: "echo a" })
    expect(loads).toBe(2)
  })
})

/**
 * Issue 9 §1: "a spec that a gated action defined without plan/interpret does not type-check". The
 * `@ts-expect-error` lines fail `npm run typecheck` the day such a declaration type-checks; at run
 * time the registry still never reaches an interpreter the declaration lacks.
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import { describe, expect, it } from "vitest"
import { makeRegistry } from "../../core/registry.ts"
import { coreLayer, hostLayer } from "../../core/runtime.ts"
import { makeMemoryHostFs } from "../../core/services/MemoryHostFs.ts"
import { RegisteredTools } from "../../core/services/RegisteredTools.ts"
import { defaultSettings } from "../../core/settings/settings.ts"
import { defineTool, type ToolDefinition } from "../../core/tools/Tool.ts"

const Plan = Schema.TaggedStruct("Write", { path: Schema.String })
let interpreted = 0

const withoutPlan = defineTool({
  name: "test_no_plan",
  short: "noplan",
  description: "Test only: a gated action missing plan and interpret.",
  actions: { write: Schema.Struct({ path: Schema.String }) },
  enabled: () => true,
  hints: { readOnlyHint: false, destructiveHint: false, openWorldHint: false, why: "test only" },
  probe: { args: {}, ok: "any" },
  handlers: {
    // @ts-expect-error a gated action needs plan and interpret (load and view alone do not type-check)
    write: {
      gate: "transaction",
      planSchema: Plan,
      load: (input: { readonly action: "write"; readonly path: string }) => Effect.succeed(input.path),
      view: () => Effect.sync(() => ({ summary: `interpreted ${++interpreted}` }))
    }
  }
})

const runWithoutInterpret = defineTool({
  name: "test_no_interpret",
  short: "nointerpret",
  description: "Test only: a gated action missing interpret.",
  actions: { write: Schema.Struct({ path: Schema.String }) },
  enabled: () => true,
  hints: { readOnlyHint: false, destructiveHint: false, openWorldHint: false, why: "test only" },
  probe: { args: {}, ok: "any" },
  handlers: {
    // @ts-expect-error an ungated declaration has no load/plan: `gate: "none"` takes `run` only
    write: { gate: "none", load: () => Effect.succeed(1) }
  }
})

describe("a gated action without plan/interpret does not type-check", () => {
  it("and, forced past the type checker, the registry fails it INTERNAL_ERROR without reaching an interpreter", async () => {
    const { host } = makeMemoryHostFs(["/ws"])
    const info = { root: "/ws", runtime: "memory" as const, platform: "linux", capabilities: ["fs"] as const }
    const settings = { ...defaultSettings, permissionMode: 2 as const }
    const tools = [withoutPlan, runWithoutInterpret] as unknown as ReadonlyArray<ToolDefinition>
    const layer = Layer.provideMerge(
      RegisteredTools.layer(tools),
      coreLayer(hostLayer({ root: info.root, runtime: info.runtime, platform: info.platform, fs: host }), settings)
    )
    const registry = makeRegistry(settings, info, tools)
    for (const name of ["test_no_plan", "test_no_interpret"]) {
      const envelope = await Effect.runPromise(
        Effect.provide(registry.call(name, { action: "write", path: "a.txt" }), layer)
      )
      expect(envelope.ok, name).toBe(false)
      expect(envelope.error?.code, name).toBe("INTERNAL_ERROR")
    }
    expect(interpreted).toBe(0)
  })
})

/**
 * Issue 28 item 1, "An ungated action cannot change anything, by type": an ungated `run` and a gated
 * `load` get the read-only context (ReadContext), which has no `WorkspaceWrites`; only a gated action's
 * `interpret` may write the workspace. Each `@ts-expect-error` below fails `npx tsc` the day a write from
 * `run` or `load` type-checks (the directive becomes unused), and the spec shows at run time that the same
 * write, in `interpret`, goes through the gate.
 */
import * as fs from "node:fs/promises"
import * as path from "node:path"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import { afterEach, describe, expect, it } from "vitest"
import { toolError } from "../../core/protocol/errors.ts"
import { WorkspaceWrites } from "../../core/services/Workspace.ts"
import { defineTool, gatedAction, type ReadContext, ungated } from "../../core/tools/Tool.ts"
import { openWorkspace, type TempWorkspace } from "../support/workspace.ts"

const bytes = (text: string) => new TextEncoder().encode(text)
const written = (rel: string) => Effect.flatMap(WorkspaceWrites, (ws) => ws.write(rel, bytes("written")))
const Fields = Schema.Struct({ path: Schema.String })
const Plan = Schema.TaggedStruct("Write", { path: Schema.String })

// An ungated action that writes the workspace: refused by the type checker.
// @ts-expect-error WorkspaceWrites is not in an ungated run's context (ReadContext)
const writesFromRun = ungated((input: { readonly path: string }) => Effect.as(written(input.path), { summary: "" }))

// The same through a handlers entry.
const writesFromRunEntry: {
  readonly gate: "none"
  readonly run: (input: { readonly path: string }) => Effect.Effect<{ summary: string }, never, ReadContext>
} = {
  gate: "none",
  // @ts-expect-error WorkspaceWrites is not in an ungated run's context (ReadContext)
  run: (input) => Effect.as(Effect.orDie(written(input.path)), { summary: "" })
}

// A gated action whose load writes: refused by the type checker.
const writesFromLoad = gatedAction({
  gate: "transaction",
  planSchema: Plan,
  // @ts-expect-error WorkspaceWrites is not in a load's context (ReadContext)
  load: (input: { readonly action: "write"; readonly path: string }) => Effect.as(written(input.path), input.path),
  plan: (_input, rel: string) => Either.left(toolError("INVALID_INPUT", rel)),
  interpret: () => Effect.void,
  view: () => Effect.succeed({ summary: "" })
})

/** The write where it belongs: in the interpreter, behind the gate. */
const gatedWriter = defineTool({
  name: "test_interpret_writes",
  short: "iwrites",
  description: "Test only: a gated action whose interpreter writes one file.",
  actions: { write: Fields },
  enabled: () => true,
  hints: { readOnlyHint: false, destructiveHint: false, openWorldHint: false, why: "test only" },
  probe: { args: {}, ok: "any" },
  handlers: {
    write: gatedAction({
      gate: "transaction",
      planSchema: Plan,
      load: (input: { readonly action: "write"; readonly path: string }) => Effect.succeed(input.path),
      plan: (_input, rel: string) =>
        Either.right({
          _tag: "Planned" as const,
          plan: { _tag: "Write" as const, path: rel },
          work: rel,
          title: `Write ${rel}`,
          prompt: { _tag: "transaction" as const, diff: `+++ ${rel}`, paths: [rel] },
          resume: { tool: "test_interpret_writes", arguments: { action: "write", path: rel } }
        }),
      interpret: (plan) => written(plan.path),
      view: (_outcome, planned) => Effect.succeed({ summary: `Wrote ${planned.plan.path}.` })
    })
  }
})

let ws: TempWorkspace | undefined
afterEach(async () => {
  await ws?.dispose()
  ws = undefined
})

describe("an ungated action cannot change anything, by type", () => {
  it("the refused declarations are still the declarations they claim (the type checker, not their shape, refuses them)", () => {
    expect([writesFromRun.gate, writesFromRunEntry.gate, writesFromLoad.gate]).toEqual(["none", "none", "transaction"])
  })
  it("a write in interpret type-checks and runs only through the gate: staged in Manual, written in Auto", async () => {
    ws = await openWorkspace({ permissionMode: 0 }, undefined, [gatedWriter])
    const staged = await ws.call("test_interpret_writes", { action: "write", path: "a.txt" })
    expect((staged.data as { status: string }).status).toBe("pending_approval")
    await expect(fs.stat(path.join(ws.dir, "a.txt"))).rejects.toThrow()
    await ws.dispose()
    ws = await openWorkspace({ permissionMode: 2 }, undefined, [gatedWriter])
    const done = await ws.call("test_interpret_writes", { action: "write", path: "a.txt" })
    expect(done.ok, done.summary).toBe(true)
    expect(await fs.readFile(path.join(ws.dir, "a.txt"), "utf8")).toBe("written")
  })
})

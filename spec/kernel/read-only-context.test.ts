/**
 * Issue 28 item 1, "An ungated action cannot change anything, by type": an ungated `run` and a gated
 * `load` get the read-only context (ReadContext): no `WorkspaceWrites`, no `StateStore` (the store's reads are
 * `StateReads`; the tool's own records are `OwnStore`, a kernel-owned write confined to the tool's storage),
 * no `HostFs` (its reads are `HostReads`); only a gated action's `interpret` may write the workspace. Each
 * `@ts-expect-error` below fails `npx tsc` the day a write from `run` or `load` type-checks (the directive
 * becomes unused), and the spec shows at run time that the same write, in `interpret`, goes through the gate,
 * that OwnStore refuses a path outside the tool's storage, and that PlanRecords changes plan records only.
 */
import * as fs from "node:fs/promises"
import * as path from "node:path"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import { afterEach, describe, expect, it } from "vitest"
import { toolError } from "../../core/protocol/errors.ts"
import { PlanRecords } from "../../core/gate/planRecords.ts"
import { HostFs, HostReads } from "../../core/services/HostFs.ts"
import { WorkspaceWrites } from "../../core/services/Workspace.ts"
import { OwnStore, StateReads, StateStore } from "../../core/store/StateStore.ts"
import { planTool } from "../../core/tools/plan/tool.ts"
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

// The state store's writes from an ungated run (an approval record planted by a read): refused.
const storeWriteFromRun = ungated(() =>
  // @ts-expect-error StateStore is not in an ungated run's context (it has StateReads and OwnStore)
  Effect.as(Effect.orDie(Effect.flatMap(StateStore, (store) => store.writeText("approvals/state.json", "{}"))), {
    summary: ""
  })
)

// The host filesystem's writes from a load: refused.
const hostWriteFromLoad = gatedAction({
  gate: "transaction",
  planSchema: Plan,
  // @ts-expect-error HostFs is not in a load's context (it has HostReads)
  load: (input: { readonly action: "write"; readonly path: string }) =>
    Effect.as(Effect.orDie(Effect.flatMap(HostFs, (host) => host.writeFileAtomic(input.path, bytes("x")))), input.path),
  plan: (_input, rel: string) => Either.left(toolError("INVALID_INPUT", rel)),
  interpret: () => Effect.void,
  view: () => Effect.succeed({ summary: "" })
})

// The reading services have no writing member at all.
// @ts-expect-error StateReads has no writeText
const readsCannotWrite = Effect.flatMap(StateReads, (store) => store.writeText("notes/a.md", "x"))
// @ts-expect-error HostReads has no writeFileAtomic
const hostReadsCannotWrite = Effect.flatMap(HostReads, (host) => host.writeFileAtomic("/tmp/x", bytes("x")))

// What a read may do type-checks: the store's and the host's reads, the tool's own records.
const readsAndOwnRecords = ungated((input: { readonly path: string }) =>
  Effect.gen(function* () {
    const reads = yield* StateReads
    const host = yield* HostReads
    const own = yield* OwnStore
    yield* own.writeText(input.path, "kept")
    return { summary: `${reads.path(input.path)} ${typeof host.stat}` }
  })
)

/** An ungated tool that keeps records through OwnStore: its storage is `.agentic/testown/`. */
const ownWriter = defineTool({
  name: "test_own_store",
  short: "ownstore",
  description: "Test only: an ungated action that writes through OwnStore.",
  actions: { write: Fields },
  enabled: () => true,
  hints: { readOnlyHint: false, destructiveHint: false, openWorldHint: false, why: "test only" },
  storage: [{ name: "testown", path: ".agentic/testown/", probe: "testown", description: "test", rank: 999 }],
  probe: { args: {}, ok: "any" },
  handlers: { write: readsAndOwnRecords }
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
    expect([
      writesFromRun.gate,
      writesFromRunEntry.gate,
      writesFromLoad.gate,
      storeWriteFromRun.gate,
      hostWriteFromLoad.gate
    ]).toEqual(["none", "none", "transaction", "none", "transaction"])
    expect([Effect.isEffect(readsCannotWrite), Effect.isEffect(hostReadsCannotWrite)]).toEqual([true, true])
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

  it("OwnStore keeps a tool's records in its own storage; a path outside it fails PROTECTED_PATH and writes nothing", async () => {
    ws = await openWorkspace({ permissionMode: 0 }, undefined, [ownWriter])
    const kept = await ws.call("test_own_store", { action: "write", path: "testown/a.txt" })
    expect(kept.ok, kept.summary).toBe(true)
    expect(await fs.readFile(path.join(ws.dir, ".agentic/testown/a.txt"), "utf8")).toBe("kept")
    for (const outside of [
      "approvals/state.json",
      "testown/../approvals/state.json",
      "notes/planted.md",
      "testownx/a"
    ]) {
      const refused = await ws.call("test_own_store", { action: "write", path: outside })
      expect(refused.ok, outside).toBe(false)
      expect(refused.error?.code, outside).toBe("PROTECTED_PATH")
    }
    await expect(fs.stat(path.join(ws.dir, ".agentic/approvals/state.json"))).rejects.toThrow()
    await expect(fs.stat(path.join(ws.dir, ".agentic/notes/planted.md"))).rejects.toThrow()
  })
  it("PlanRecords changes plan records only: approving a staged call through it is refused and the store is unchanged", async () => {
    ws = await openWorkspace({ permissionMode: 0 }, undefined, [gatedWriter, planTool])
    const staged = await ws.call("test_interpret_writes", { action: "write", path: "a.txt" })
    expect((staged.data as { status: string }).status).toBe("pending_approval")
    const file = path.join(ws.dir, ".agentic/approvals/state.json")
    const before = await fs.readFile(file, "utf8")
    const approve = Effect.flatMap(PlanRecords, (plans) =>
      plans.update((records) =>
        Effect.succeed([undefined, records.map((record) => ({ ...record, status: "approved" as const }))] as const)
      )
    )
    const refused = await ws.run(Effect.either(approve))
    expect(Either.isLeft(refused) && refused.left.code).toBe("INTERNAL_ERROR")
    expect(await fs.readFile(file, "utf8")).toBe(before)
    const proposed = await ws.call("workspace_plan", {
      action: "propose",
      title: "t",
      objective: "o",
      steps: ["one"]
    })
    expect(proposed.ok, proposed.summary).toBe(true)
  })
})

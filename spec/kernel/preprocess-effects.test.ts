/**
 * The effectful half of the prompt preprocessor (core/gate/preprocess.ts: `preprocess`, `decideCommand`) in
 * process, on the memory host with a fixed clock: what the model sees for a pass-through command, a plain
 * message in each mode, a decided and a refused /accept or /deny, and what the store holds afterwards. The
 * reference sentences are tested over a real workspace in spec/kernel/preprocessor.test.ts; this file is what
 * a mutation run of preprocess.ts judges these two functions by (it needs no disk and no child process).
 */
import * as Clock from "effect/Clock"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import { afterEach, describe, expect, it } from "vitest"
import { loadRecords, updateRecords } from "../../core/gate/gate.ts"
import { decideCommand, preprocess } from "../../core/gate/preprocess.ts"
import type { ApprovalRecord, RecordKind, RecordStatus } from "../../core/gate/records.ts"
import { hostLayer, startHost, type WorkspaceRuntime } from "../../core/runtime.ts"
import { CurrentSettings } from "../../core/services/CurrentSettings.ts"
import { makeMemoryHostFs } from "../../core/services/MemoryHostFs.ts"
import { defaultSettings } from "../../core/settings/settings.ts"

const NOW = Date.UTC(2026, 5, 1, 12)

const fixedClock = (now: number): Clock.Clock => {
  const base = Clock.make()
  return {
    [Clock.ClockTypeId]: Clock.ClockTypeId,
    unsafeCurrentTimeMillis: () => now,
    currentTimeMillis: Effect.succeed(now),
    unsafeCurrentTimeNanos: () => BigInt(now) * 1_000_000n,
    currentTimeNanos: Effect.succeed(BigInt(now) * 1_000_000n),
    sleep: (duration: Duration.Duration) => base.sleep(duration)
  } as Clock.Clock
}

const open: Array<WorkspaceRuntime> = []
afterEach(async () => {
  for (const runtime of open.splice(0)) await runtime.dispose()
})

/** A memory workspace holding `records`; `run` runs an effect in `mode` at NOW. */
const workspace = async (records: ReadonlyArray<ApprovalRecord>) => {
  const layer = hostLayer({
    root: "/workspace",
    runtime: "memory",
    platform: "memory",
    fs: makeMemoryHostFs(["/workspace"]).host
  })
  const runtime = await startHost(layer, defaultSettings, [])
  open.push(runtime)
  const run = <A, E>(mode: 0 | 1 | 2, effect: Effect.Effect<A, E, any>): Promise<A> =>
    runtime.run(
      effect.pipe(
        Effect.provideService(CurrentSettings, { ...defaultSettings, permissionMode: mode }),
        Effect.withClock(fixedClock(NOW))
      ) as Effect.Effect<A, E, never>
    )
  await run(
    0,
    updateRecords(() => Effect.succeed([undefined, records] as const))
  )
  const stored = async () =>
    (await run(0, loadRecords)).map((record) => ({
      id: record.id,
      status: record.status,
      decidedAt: record.decidedAt,
      note: record.note,
      reason: record.reason
    }))
  return { run, stored }
}

const rec = (id: string, kind: RecordKind, status: RecordStatus, ago: number): ApprovalRecord => ({
  id,
  kind,
  status,
  title: `title of ${id}`,
  createdAt: new Date(NOW - ago).toISOString()
})

const DECIDED_AT = new Date(NOW).toISOString()
const mode0None =
  "<agentic-mode>\nPermission mode: Manual (0).\nNo approvals are pending. Every mutating call is staged for the user's /accept.\n</agentic-mode>"
const mode0One =
  "<agentic-mode>\nPermission mode: Manual (0).\nPending approvals, newest first (a bare /accept decides #1 only; name the id otherwise):\n1. approval_old [command] title of approval_old (2m ago)\n</agentic-mode>"
const mode1None =
  "<agentic-mode>\nPermission mode: Plan (1).\nNo plan is pending or approved: mutating calls fail with APPROVAL_REQUIRED until a plan proposed with workspace_plan is accepted.\n</agentic-mode>"

describe("the preprocessor on a store", () => {
  it("a compressor command passes through untouched in every mode, with no block", async () => {
    const w = await workspace([rec("approval_a", "transaction", "pending", 0)])
    for (const mode of [0, 1, 2] as const) {
      expect(await w.run(mode, preprocess("  /compact keep the last turn"))).toStrictEqual({
        text: "  /compact keep the last turn"
      })
    }
  })

  it("a plain message gets the mode block after a blank line outside Auto, and is left as it is in Auto", async () => {
    const w = await workspace([])
    expect(await w.run(0, preprocess("hello"))).toStrictEqual({ text: `hello\n\n${mode0None}` })
    expect(await w.run(1, preprocess("hello"))).toStrictEqual({ text: `hello\n\n${mode1None}` })
    expect(await w.run(2, preprocess("hello"))).toStrictEqual({ text: "hello" })
  })

  it("a bare /accept decides the newest pending record: the approval block, then the mode block of the store after it", async () => {
    const w = await workspace([
      rec("approval_new", "transaction", "pending", 0),
      rec("approval_old", "command", "pending", 120_000)
    ])
    const result = await w.run(0, preprocess("/accept ship it"))
    expect(result.text).toBe(
      `<agentic-approval>\nThe user accepted approval_new (transaction): title of approval_new.\nUser note: ship it\n</agentic-approval>\n\n${mode0One}`
    )
    expect(result.decided?.verb).toBe("accept")
    expect(result.decided?.record).toMatchObject({
      id: "approval_new",
      status: "approved",
      note: "ship it",
      decidedAt: DECIDED_AT
    })
    expect(result.refused).toBeUndefined()
    expect(Object.keys(result).sort()).toEqual(["decided", "text"])
    expect(await w.stored()).toEqual([
      { id: "approval_new", status: "approved", decidedAt: DECIDED_AT, note: "ship it", reason: undefined },
      { id: "approval_old", status: "pending", decidedAt: undefined, note: undefined, reason: undefined }
    ])
  })

  it("/deny with an id in Auto: the approval block alone, the record denied with its reason", async () => {
    const w = await workspace([
      rec("approval_new", "transaction", "pending", 0),
      rec("approval_old", "command", "pending", 120_000)
    ])
    const result = await w.run(2, preprocess("/deny approval_old not now"))
    expect(result).toStrictEqual({
      text: "<agentic-approval>\nThe user denied approval_old (command): title of approval_old.\nReason: not now\nNever re-issue the denied operation unchanged: change it to meet the reason, or ask the user.\n</agentic-approval>",
      decided: result.decided
    })
    expect(result.decided).toMatchObject({
      verb: "deny",
      record: { id: "approval_old", status: "denied", reason: "not now" }
    })
    expect((await w.stored()).map((record) => [record.id, record.status, record.reason])).toEqual([
      ["approval_new", "pending", undefined],
      ["approval_old", "denied", "not now"]
    ])
  })

  it("an /accept the store refuses: the refused block and the mode block, the refusal returned, nothing stored", async () => {
    const w = await workspace([rec("approval_done", "transaction", "approved", 0)])
    const result = await w.run(0, preprocess("/accept"))
    expect(result.text).toBe(
      `<agentic-approval>\nThe user typed /accept, but nothing was decided: NOT_FOUND: Nothing is pending, so /accept has nothing to decide.\nTell the user; do not retry any operation on the strength of this message.\n</agentic-approval>\n\n${mode0None}`
    )
    expect(result.refused?.code).toBe("NOT_FOUND")
    expect(result.decided).toBeUndefined()
    expect(Object.keys(result).sort()).toEqual(["refused", "text"])
    const again = await w.run(2, preprocess("/deny approval_done"))
    expect(again.text).toBe(
      "<agentic-approval>\nThe user typed /deny approval_done, but nothing was decided: TRANSACTION_STATE: approval_done is approved, not pending: it cannot be decided again.\nTell the user; do not retry any operation on the strength of this message.\n</agentic-approval>"
    )
    expect(await w.stored()).toEqual([
      { id: "approval_done", status: "approved", decidedAt: undefined, note: undefined, reason: undefined }
    ])
  })

  it("decideCommand: the outcome of a decision, stored; a refusal fails with its code and changes nothing", async () => {
    const w = await workspace([rec("plan_p", "plan", "pending", 0)])
    const outcome = await w.run(1, decideCommand({ verb: "accept", id: "plan_p" }))
    expect(outcome.verb).toBe("accept")
    expect(outcome.record).toMatchObject({ id: "plan_p", status: "approved", decidedAt: DECIDED_AT })
    const refusal = await w.run(1, Effect.flip(decideCommand({ verb: "deny", id: "plan_p" })))
    expect(refusal.code).toBe("TRANSACTION_STATE")
    expect(await w.stored()).toEqual([
      { id: "plan_p", status: "approved", decidedAt: DECIDED_AT, note: undefined, reason: undefined }
    ])
  })
})

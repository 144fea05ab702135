/**
 * The reference model (core/verify/model.ts) read against the reference's sentences, and the pure rules of
 * core/gate (decide, expiry, the cap, /accept and /deny) held against the model for arbitrary stores.
 */
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { applyCommand } from "../../core/gate/preprocess.ts"
import { type ApprovalRecord, capRecords, decide, expireRecords, newestFirst } from "../../core/gate/records.ts"
import { runs } from "../../properties/runs.ts"
import {
  agentLowering,
  capModel,
  cellOutcome,
  decideModel,
  gateCall,
  initialModel,
  MODEL_EXPIRY_MS,
  MODEL_MAX_RECORDS,
  type ModelRecord,
  type ModelStatus,
  ownStateAt,
  planStateAt,
  proposeModel,
  settleRun,
  statusAt
} from "../../core/verify/model.ts"

const SEED = 20261201
const NOW = Date.UTC(2026, 5, 1)
const KEYS = ["k1", "k2", "k3"] as const

/** A model record as the store holds it (kind, hash, ISO time). */
const stored = (record: ModelRecord): ApprovalRecord => ({
  id: record.id,
  kind: record.plan ? "plan" : "command",
  status: record.status,
  title: record.id,
  createdAt: new Date(record.createdAt).toISOString(),
  ...(record.key === undefined ? {} : { hash: record.key })
})

/** Arbitrary stores: distinct creation times (the order is then the same for both), operations and plans. */
const storeArb = (maxLength: number, minLength = 0) =>
  fc.uniqueArray(fc.integer({ min: NOW - 2 * MODEL_EXPIRY_MS, max: NOW }), { minLength, maxLength }).chain((times) =>
    fc.tuple(
      ...times.map((createdAt, index) =>
        fc
          .record({
            plan: fc.boolean(),
            key: fc.constantFrom(...KEYS),
            status: fc.constantFrom<ModelStatus>(
              "pending",
              "approved",
              "denied",
              "consumed",
              "completed",
              "superseded",
              "expired"
            )
          })
          .map(
            ({ plan, key, status }): ModelRecord => ({
              id: `r${index}`,
              plan,
              ...(plan ? {} : { key }),
              status: plan && status === "consumed" ? "completed" : status,
              createdAt,
              seq: index
            })
          )
      )
    )
  )

describe(`the pure gate rules agree with the reference model (seed ${SEED})`, () => {
  it("decide gives the model's outcome for every mode, ceiling and store", () => {
    fc.assert(
      fc.property(
        storeArb(12),
        fc.constantFrom(0 as const, 1 as const, 2 as const),
        fc.boolean(),
        fc.boolean(),
        fc.constantFrom(...KEYS),
        (records, mode, destructive, allow, key) => {
          const real = decide({
            mode,
            allowDestructiveEdits: allow,
            destructive,
            hash: key,
            records: expireRecords(newestFirst(records.map(stored)), NOW)
          })
          const model = gateCall(
            { records, nextSeq: records.length },
            { mode, allowDestructiveEdits: allow },
            { key, destructive },
            NOW,
            "new"
          ).outcome
          const shown =
            real._tag === "Run"
              ? { _tag: "ran", ...(real.consume === undefined ? {} : { consumed: real.consume }) }
              : real._tag === "Stage"
                ? { _tag: "staged", id: real.existing ?? "new", fresh: real.existing === undefined }
                : {
                    _tag: "refused",
                    code: real.code,
                    ...(real.approvalId === undefined ? {} : { approvalId: real.approvalId })
                  }
          expect(shown).toEqual(model)
        }
      ),
      { seed: SEED, numRuns: runs(2000) }
    )
  })

  it("expiry: 'Records expire 24 hours after they were created while pending, approved or denied' — consumed, completed and superseded are terminal", () => {
    fc.assert(
      fc.property(storeArb(12), (records) => {
        const real = expireRecords(records.map(stored), NOW)
        expect(real.map((record) => record.status)).toEqual(records.map((record) => statusAt(record, NOW)))
      }),
      { seed: SEED, numRuns: runs(500) }
    )
  })

  it("the cap: 'At most 300 records are kept' — the same records are dropped, or both refuse (STORE_FULL)", () => {
    let over = 0
    fc.assert(
      fc.property(storeArb(MODEL_MAX_RECORDS + 20, MODEL_MAX_RECORDS - 5), (records) => {
        if (records.length > MODEL_MAX_RECORDS) over++
        const real = capRecords(newestFirst(expireRecords(records.map(stored), NOW)))
        const model = capModel(records, NOW)
        if (model._tag === "full") expect(real).toBeUndefined()
        else expect(real?.map((record) => record.id).sort()).toEqual(model.records.map((record) => record.id).sort())
      }),
      { seed: SEED, numRuns: runs(60) }
    )
    // More than 20 of the full 60 stores are over the cap (the same share of a scaled run).
    expect(over).toBeGreaterThan(Math.floor((20 * runs(60)) / 60))
  })

  it("/accept and /deny, with and without ids, decide the record the model decides", () => {
    fc.assert(
      fc.property(
        storeArb(10),
        fc.constantFrom("accept" as const, "deny" as const),
        fc.option(fc.nat(12), { nil: undefined }),
        (records, verb, index) => {
          const id = index === undefined ? undefined : `r${index}`
          const real = applyCommand(
            newestFirst(expireRecords(records.map(stored), NOW)),
            { verb, ...(id === undefined ? {} : { id }) },
            NOW
          )
          const model = decideModel(
            { records, nextSeq: records.length },
            { verb, ...(id === undefined ? {} : { id }) },
            NOW
          ).outcome
          if ("outcome" in real)
            expect({ _tag: "decided", id: real.outcome.record.id, status: real.outcome.record.status }).toEqual(model)
          else expect({ _tag: "refused", code: real.code }).toEqual(model)
        }
      ),
      { seed: SEED, numRuns: runs(1000) }
    )
  })
})

describe("the reference model, sentence by sentence", () => {
  const op = (status: ModelStatus, createdAt = NOW - 1000, key = "k1"): ModelRecord => ({
    id: `a_${status}`,
    plan: false,
    key,
    status,
    createdAt,
    seq: 1
  })

  it("'Without it they fail with PROTECTED_PATH in every mode, before any approval is considered'", () => {
    for (const mode of [0, 1, 2] as const) {
      const step = gateCall(
        { records: [op("approved")], nextSeq: 2 },
        { mode, allowDestructiveEdits: false },
        { key: "k1", destructive: true },
        NOW,
        "x"
      )
      expect(step.outcome).toEqual({ _tag: "refused", code: "PROTECTED_PATH" })
    }
  })

  it("'Re-issuing the same call while it is pending returns the same approval id instead of staging a duplicate'", () => {
    const first = gateCall(
      initialModel,
      { mode: 0, allowDestructiveEdits: false },
      { key: "k1", destructive: false },
      NOW,
      "a1"
    )
    const again = gateCall(
      first.state,
      { mode: 0, allowDestructiveEdits: false },
      { key: "k1", destructive: false },
      NOW + 1,
      "a2"
    )
    expect(first.outcome).toEqual({ _tag: "staged", id: "a1", fresh: true })
    expect(again.outcome).toEqual({ _tag: "staged", id: "a1", fresh: false })
    expect(again.state.records).toHaveLength(1)
  })

  it("'it is consumed once the mutation succeeds': a failed run leaves the approval approved", () => {
    const state = { records: [op("approved")], nextSeq: 2 }
    const step = gateCall(state, { mode: 0, allowDestructiveEdits: false }, { key: "k1", destructive: false }, NOW, "x")
    expect(step.outcome).toEqual({ _tag: "ran", consumed: "a_approved" })
    expect(settleRun(step.state, step.outcome, false).records[0]!.status).toBe("approved")
    expect(settleRun(step.state, step.outcome, true).records[0]!.status).toBe("consumed")
  })

  it("'a denial blocks the identical operation with APPROVAL_DENIED until then' — and not a different one, nor after 24 h", () => {
    const state = { records: [op("denied", NOW - 1000)], nextSeq: 2 }
    expect(
      gateCall(state, { mode: 2, allowDestructiveEdits: false }, { key: "k1", destructive: false }, NOW, "x").outcome
    ).toEqual({ _tag: "refused", code: "APPROVAL_DENIED", approvalId: "a_denied" })
    expect(
      gateCall(state, { mode: 2, allowDestructiveEdits: false }, { key: "k2", destructive: false }, NOW, "x").outcome
    ).toEqual({ _tag: "ran" })
    expect(
      gateCall(
        state,
        { mode: 2, allowDestructiveEdits: false },
        { key: "k1", destructive: false },
        NOW - 1000 + MODEL_EXPIRY_MS,
        "x"
      ).outcome
    ).toEqual({ _tag: "ran" })
  })

  it("the no-op exceptions run in every mode, over the ceiling too", () => {
    for (const mode of [0, 1, 2] as const) {
      expect(
        gateCall(
          initialModel,
          { mode, allowDestructiveEdits: false },
          { key: "k1", destructive: true, noop: true },
          NOW,
          "x"
        ).outcome
      ).toEqual({ _tag: "ran", noop: true })
    }
  })

  it("'Proposing a new plan supersedes any pending or approved one'; an approved plan unlocks Plan mode for a day", () => {
    const plan: ModelRecord = { id: "p1", plan: true, status: "approved", createdAt: NOW - 1000, seq: 1 }
    const state = { records: [plan], nextSeq: 2 }
    expect(planStateAt(state, NOW)).toBe("approved")
    expect(cellOutcome({ mode: 1, plan: planStateAt(state, NOW), own: "none", destructive: "safe" })).toBe("run")
    expect(planStateAt(state, NOW - 1000 + MODEL_EXPIRY_MS)).toBe("expired")
    const proposed = proposeModel(state, NOW, "p2")
    expect(proposed.superseded).toEqual(["p1"])
    expect(planStateAt(proposed.state, NOW)).toBe("pending")
  })

  it("'Without an id the most recently staged pending record is decided, and only that one — plans included'", () => {
    const records: Array<ModelRecord> = [
      op("pending", NOW - 2000),
      { id: "p", plan: true, status: "pending", createdAt: NOW - 1000, seq: 2 }
    ]
    const decided = decideModel({ records, nextSeq: 3 }, { verb: "accept" }, NOW)
    expect(decided.outcome).toEqual({ _tag: "decided", id: "p", status: "approved" })
    expect(decided.state.records.filter((record) => record.status === "pending")).toHaveLength(1)
    expect(decideModel({ records: [], nextSeq: 1 }, { verb: "deny" }, NOW).outcome).toEqual({
      _tag: "refused",
      code: "NOT_FOUND"
    })
  })

  it("the own-record state: a live denial outranks an approval of the same operation", () => {
    expect(ownStateAt({ records: [op("approved"), { ...op("denied"), id: "d" }], nextSeq: 3 }, "k1", NOW)).toBe(
      "denied"
    )
  })

  it("sub-agent lowering: 'starts with commit_edits=false; staged when the run may execute commands or reach the web'", () => {
    expect(agentLowering(0, "none", { commands: false, web: false })).toEqual({ gated: false, commitEdits: false })
    expect(agentLowering(0, "none", { commands: true, web: false })).toEqual({ gated: true, commitEdits: false })
    expect(agentLowering(0, "none", { commands: false, web: true })).toEqual({ gated: true, commitEdits: false })
    expect(agentLowering(2, "none", { commands: true, web: true })).toEqual({ gated: false, commitEdits: true })
    expect(agentLowering(1, "approved", { commands: true, web: true })).toEqual({ gated: false, commitEdits: true })
    expect(agentLowering(1, "none", { commands: false, web: false }).refused).toBe("APPROVAL_REQUIRED")
  })
})

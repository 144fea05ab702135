/**
 * Law: the approval rules (decide, /accept and /deny, expiry) match a plain reference state machine
 * written from the reference's sentences, for any sequence of calls, decisions and elapsed time.
 * Model per operation: staged → pending (re-issue returns the same id) → approved (runs once, consumed)
 * or denied (APPROVAL_DENIED until 24 h after creation); a bare decision takes the newest pending record.
 */
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { applyCommand } from "../core/gate/preprocess.ts"
import { type ApprovalRecord, decide, EXPIRY_MS, expireRecords, newestFirst } from "../core/gate/records.ts"
import { runs } from "./runs.ts"

const SEED = 20261130
const T0 = Date.UTC(2026, 0, 1)
const OPS = ["op_a", "op_b", "op_c"] as const

type Step =
  | { readonly _tag: "call"; readonly op: (typeof OPS)[number]; readonly mode: 0 | 1 | 2 }
  | {
      readonly _tag: "decide"
      readonly verb: "accept" | "deny"
      readonly target: "bare" | "newest-of-op" | "unknown"
      readonly op: (typeof OPS)[number]
    }
  | { readonly _tag: "wait"; readonly ms: number }

const step: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      _tag: fc.constant("call" as const),
      op: fc.constantFrom(...OPS),
      mode: fc.constantFrom(0 as const, 0 as const, 1 as const, 2 as const)
    })
  },
  {
    weight: 3,
    arbitrary: fc.record({
      _tag: fc.constant("decide" as const),
      verb: fc.constantFrom("accept" as const, "deny" as const),
      target: fc.constantFrom("bare" as const, "newest-of-op" as const, "unknown" as const),
      op: fc.constantFrom(...OPS)
    })
  },
  {
    weight: 1,
    arbitrary: fc.record({
      _tag: fc.constant("wait" as const),
      ms: fc.constantFrom(0, 1, 60_000, 6 * 3_600_000, EXPIRY_MS - 1, EXPIRY_MS)
    })
  }
)

/** The reference, as a plain model: one entry per staged approval. */
interface ModelEntry {
  id: string
  op: string
  status: "pending" | "approved" | "denied" | "consumed"
  createdAt: number
  seq: number
}
const live = (entry: ModelEntry, now: number) => entry.status !== "consumed" && now < entry.createdAt + EXPIRY_MS
const modelStatus = (entry: ModelEntry, now: number) =>
  entry.status === "consumed" || live(entry, now) ? entry.status : "expired"

describe(`approval lifecycle matches the reference state machine (fast-check seed ${SEED})`, () => {
  it("for any sequence of calls (Manual, Plan without a plan, Auto), /accept and /deny (by id, bare, unknown) and waiting", () => {
    fc.assert(
      fc.property(fc.array(step, { minLength: 1, maxLength: 40 }), (steps) => {
        let now = T0
        let records: ReadonlyArray<ApprovalRecord> = []
        const model: Array<ModelEntry> = []
        let seq = 0
        for (const current of steps) {
          if (current._tag === "wait") {
            now += current.ms
            continue
          }
          records = newestFirst(expireRecords(records, now))
          if (current._tag === "call") {
            // system under test: the pure decision, applied to the records as the gate applies it
            const decision = decide({
              mode: current.mode,
              allowDestructiveEdits: false,
              destructive: false,
              hash: current.op,
              records
            })
            let actual: string
            if (decision._tag === "Refuse")
              actual = decision.code === "APPROVAL_DENIED" ? `denied ${decision.approvalId}` : decision.code
            else if (decision._tag === "Run") {
              actual = decision.consume === undefined ? "run" : `run ${decision.consume}`
              if (decision.consume !== undefined)
                records = records.map((r) => (r.id === decision.consume ? { ...r, status: "consumed" as const } : r))
            } else if (decision.existing !== undefined) actual = `stage ${decision.existing}`
            else {
              const id = `approval_${seq}`
              records = [
                {
                  id,
                  kind: "command",
                  status: "pending",
                  title: current.op,
                  createdAt: new Date(now).toISOString(),
                  hash: current.op
                },
                ...records
              ]
              actual = `stage ${id}`
            }
            // the model
            const mine = model.filter((entry) => entry.op === current.op && live(entry, now))
            const denied = mine.find((entry) => entry.status === "denied")
            const approved = mine.find((entry) => entry.status === "approved")
            const pending = mine.find((entry) => entry.status === "pending")
            let expected: string
            if (denied !== undefined) expected = `denied ${denied.id}`
            else if (current.mode === 2) expected = "run"
            else if (current.mode === 1) expected = "APPROVAL_REQUIRED"
            else if (approved !== undefined) {
              approved.status = "consumed"
              expected = `run ${approved.id}`
            } else if (pending !== undefined) expected = `stage ${pending.id}`
            else {
              model.push({ id: `approval_${seq}`, op: current.op, status: "pending", createdAt: now, seq })
              expected = `stage approval_${seq}`
            }
            seq++
            expect(actual).toBe(expected)
          } else {
            const newestOfOp = model.filter((entry) => entry.op === current.op).sort((a, b) => b.seq - a.seq)[0]
            const id =
              current.target === "bare" ? undefined : current.target === "unknown" ? "approval_unknown" : newestOfOp?.id
            if (current.target === "newest-of-op" && id === undefined) continue
            const applied = applyCommand(records, { verb: current.verb, ...(id === undefined ? {} : { id }) }, now)
            const actual =
              "outcome" in applied ? `${applied.outcome.record.id} ${applied.outcome.record.status}` : applied.code
            if ("outcome" in applied) records = applied.records
            const target =
              id === undefined
                ? model
                    .filter((entry) => entry.status === "pending" && live(entry, now))
                    .sort((a, b) => b.createdAt - a.createdAt || b.seq - a.seq)[0]
                : model.find((entry) => entry.id === id)
            let expected: string
            if (target === undefined) expected = "NOT_FOUND"
            else if (modelStatus(target, now) !== "pending") expected = "TRANSACTION_STATE"
            else {
              target.status = current.verb === "accept" ? "approved" : "denied"
              expected = `${target.id} ${target.status}`
            }
            expect(actual).toBe(expected)
          }
        }
        // and every record's status agrees at the end
        records = expireRecords(records, now)
        for (const entry of model)
          expect(records.find((r) => r.id === entry.id)?.status, entry.id).toBe(modelStatus(entry, now))
      }),
      { seed: SEED, numRuns: runs(300) }
    )
  })
})

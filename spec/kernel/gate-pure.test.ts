/**
 * The gate (core/gate/gate.ts) in process: `gated`, the locked store update and the records' MACs over the
 * memory filesystem (core/services/MemoryHostFs.ts) with the real StateStore, a fixed WorkspaceKey, fixed
 * settings and a fixed clock. No real host and no child process, so the mutation run of gate.ts
 * (docs/MUTATION.md) can afford it; spec/kernel/gate.test.ts proves the same rules over a real workspace.
 * Reference: "Permission mode", "Gated actions per tool" (staging, re-issue, consumption on success,
 * denial, expiry), "Destructive operations" (the ceiling before any approval), the approvals store's cap.
 */
import { createHmac } from "node:crypto"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import { describe, expect, it } from "vitest"
import {
  destructiveRefusal,
  GateFault,
  type GateFaultName,
  type GateRequest,
  gated,
  loadRecordState,
  loadRecords,
  partitionRecords,
  recordPayload,
  signRecord,
  stagedSummary,
  updateRecords
} from "../../core/gate/gate.ts"
import { hashOperation, stableStringify } from "../../core/gate/hash.ts"
import { makeWorkspaceKey, WorkspaceKey, type WorkspaceKeyShape } from "../../core/gate/key.ts"
import { RECORD_DIFF_CHARS } from "../../core/gate/prompt.ts"
import { APPROVALS_FILE, type ApprovalRecord, EXPIRY_MS, MAX_RECORDS } from "../../core/gate/records.ts"
import type { ToolResult } from "../../core/protocol/envelope.ts"
import { toolError, type ToolError } from "../../core/protocol/errors.ts"
import { CurrentSettings } from "../../core/services/CurrentSettings.ts"
import { makeMemoryHostFs } from "../../core/services/MemoryHostFs.ts"
import { defaultSettings, type Settings } from "../../core/settings/settings.ts"
import { fixedClock } from "../../core/verify/run.ts"
import { makeStateStore, readingHalf, StateReads, StateStore } from "../../core/store/StateStore.ts"

const T0 = Date.UTC(2026, 0, 15, 12, 0, 0)
const ROOT = "/w"
const KEY_BYTES = new Uint8Array(32).map((_, index) => index + 1)
const OTHER_KEY_BYTES = new Uint8Array(32).fill(9)
const hmac = (payload: string, bytes: Uint8Array = KEY_BYTES) =>
  createHmac("sha256", Buffer.from(bytes)).update(payload, "utf8").digest("hex")
const iso = (ms: number) => new Date(ms).toISOString()

type Services = StateStore | StateReads | WorkspaceKey | CurrentSettings

/** One in-memory workspace: its store (writes counted), its key, the settings and the time in force. */
const harness = async (options: { readonly settings?: Partial<Settings>; readonly fault?: GateFaultName } = {}) => {
  const memory = makeMemoryHostFs([ROOT])
  const base = makeStateStore(memory.host, ROOT)
  const world = { now: T0, writes: 0, settings: { ...defaultSettings, ...options.settings } as Settings }
  const store = {
    ...base,
    writeJson: (rel: string, value: unknown, opts?: { readonly durable?: boolean }) => {
      world.writes++
      return base.writeJson(rel, value, opts)
    }
  }
  const key = await Effect.runPromise(makeWorkspaceKey(KEY_BYTES))
  const provide = <A, E>(effect: Effect.Effect<A, E, Services>, keyShape: WorkspaceKeyShape = key) =>
    effect.pipe(
      Effect.provideService(StateStore, store),
      Effect.provideService(StateReads, readingHalf(store)),
      Effect.provideService(WorkspaceKey, keyShape),
      Effect.provideService(CurrentSettings, world.settings),
      Effect.provideService(GateFault, options.fault ?? "none"),
      Effect.withClock(fixedClock(() => world.now))
    )
  const run = <A, E>(effect: Effect.Effect<A, E, Services>): Promise<A> => Effect.runPromise(provide(effect))
  const attempt = <A, E>(effect: Effect.Effect<A, E, Services>): Promise<Either.Either<A, E>> =>
    Effect.runPromise(Effect.either(provide(effect)))
  /** The store file as written (no expiry, no MAC check). */
  const stored = async (): Promise<{ version: number; records: ReadonlyArray<ApprovalRecord> } | undefined> => {
    const text = await Effect.runPromise(base.readText(APPROVALS_FILE))
    return text === undefined ? undefined : JSON.parse(text)
  }
  const seed = async (records: ReadonlyArray<unknown>, signed = true) => {
    const laid = signed ? await run(Effect.forEach(records as ReadonlyArray<ApprovalRecord>, signRecord)) : records
    await Effect.runPromise(base.writeJson(APPROVALS_FILE, { version: 1, records: laid }))
  }
  return { world, run, attempt, stored, seed, key, provide }
}

/** An interpreter that counts its runs and succeeds (or fails with `fail`). */
const interpreter = (fail?: ToolError) => {
  const calls: Array<GateRequest> = []
  const interpret = (request: GateRequest): Effect.Effect<ToolResult, ToolError> =>
    Effect.suspend(() => {
      calls.push(request)
      return fail === undefined ? Effect.succeed({ summary: `ran ${request.title}` }) : Effect.fail(fail)
    })
  return { calls, interpret }
}

const request = (overrides: Partial<GateRequest> = {}): GateRequest => ({
  tool: "workspace_edit",
  operation: "edit.apply",
  kind: "transaction",
  title: "Apply tx_1",
  normalized: { _tag: "Apply", path: "a.txt", before: "sha-a", current: "sha-b" },
  prompt: { _tag: "transaction", diff: "+a", paths: ["a.txt"] },
  resume: { tool: "workspace_edit", arguments: { action: "apply", transaction_id: "tx_1" } },
  ...overrides
})

const record = (overrides: Partial<ApprovalRecord> = {}): ApprovalRecord => ({
  id: "approval_0000000000000001",
  kind: "transaction",
  status: "approved",
  title: "Apply tx_1",
  createdAt: iso(T0),
  ...overrides
})

const hashOf = (req: GateRequest, operation: unknown = req.normalized) =>
  Effect.runPromise(hashOperation({ tool: req.tool, kind: req.kind, operation }))

const stagedId = (result: ToolResult) => (result.data as { approval: { id: string } }).approval.id
/**
 * A ToolError as plain fields: its message is not an own enumerable property, so `toEqual` on two ToolErrors
 * compares code and details but not the message (a mutant that empties a message would pass).
 */
const fields = (error: ToolError) => ({ code: error.code, message: error.message, details: error.details })
const expectedError = (...args: Parameters<typeof toolError>) => fields(toolError(...args))
const failureOf = <A>(result: Either.Either<A, ToolError>) => {
  if (Either.isRight(result)) throw new Error(`expected a failure, got ${JSON.stringify(result.right)}`)
  return fields(result.left)
}

describe("records and their MACs", () => {
  it("the payload a MAC covers is a versioned prefix and the stable JSON of every field but the MAC", () => {
    const plain = record({ note: "n" })
    const expected = `agentic-workspace/approval-record/v1\n${stableStringify(plain)}`
    expect(recordPayload(plain)).toBe(expected)
    expect(recordPayload({ ...plain, mac: "abc" })).toBe(expected)
  })

  it("signRecord adds the HMAC-SHA-256 of that payload under the workspace key, and nothing else", async () => {
    const h = await harness()
    const plain = record()
    const signed = await h.run(signRecord(plain))
    expect(signed).toEqual({ ...plain, mac: hmac(recordPayload(plain)) })
  })

  it("partitionRecords trusts exactly the records that decode and whose MAC verifies; unknown fields are kept and covered", async () => {
    const h = await harness()
    const good = await h.run(signRecord(record({ id: "approval_good" })))
    const extra = await h.run(signRecord({ ...record({ id: "approval_extra" }), later: "field" } as ApprovalRecord))
    const unsigned = record({ id: "approval_unsigned" })
    const tampered = { ...good, id: "approval_tampered", title: "Something else" }
    const wrongKey = {
      ...record({ id: "approval_other" }),
      mac: hmac(recordPayload(record({ id: "approval_other" })), OTHER_KEY_BYTES)
    }
    const undecodable = { ...good, status: "bogus" }
    const numericMac = { ...record({ id: "approval_num" }), mac: 5 }
    const { trusted, untrusted } = await h.run(
      partitionRecords([good, extra, unsigned, tampered, wrongKey, undecodable, numericMac, "text", null])
    )
    expect(trusted).toEqual([good, extra])
    expect((trusted[1] as unknown as { later: string }).later).toBe("field")
    expect(untrusted).toEqual([unsigned, tampered, wrongKey, undecodable, numericMac, "text", null])
  })

  it("loadRecordState: trusted records newest first with expiry applied, the untrusted ones counted; nothing is written", async () => {
    const h = await harness()
    h.world.now = T0 + EXPIRY_MS
    await h.seed([
      record({ id: "approval_old", createdAt: iso(T0), status: "pending" }),
      record({ id: "approval_new", createdAt: iso(T0 + 1000), status: "approved" })
    ])
    const signed = (await h.stored())!.records
    await h.seed([...signed, record({ id: "approval_planted" })], false)
    h.world.writes = 0
    const state = await h.run(loadRecordState)
    expect(state.untrusted).toBe(1)
    expect(state.records.map((r) => [r.id, r.status])).toEqual([
      ["approval_new", "approved"],
      ["approval_old", "expired"]
    ])
    expect(await h.run(loadRecords)).toEqual(state.records)
    expect(h.world.writes).toBe(0)
    expect((await h.stored())!.records.map((r) => r.status)).toEqual(["pending", "approved", "approved"])
  })

  it("the key's verify is only ever handed string MACs (the WorkspaceKeyShape contract): a record without one is untrusted unasked", async () => {
    const h = await harness()
    const seen: Array<unknown> = []
    const permissive: WorkspaceKeyShape = {
      sign: h.key.sign,
      verify: (_payload, mac) => Effect.sync(() => (seen.push(mac), true))
    }
    const { trusted, untrusted } = await Effect.runPromise(
      h.provide(
        partitionRecords([record({ id: "approval_none" }), { ...record({ id: "approval_s" }), mac: "m" }]),
        permissive
      )
    )
    expect(seen).toEqual(["m"])
    expect(trusted.map((r) => r.id)).toEqual(["approval_s"])
    expect(untrusted).toEqual([record({ id: "approval_none" })])
  })

  it("loadRecordState of a workspace without a store: no records, none untrusted", async () => {
    const h = await harness()
    expect(await h.run(loadRecordState)).toEqual({ records: [], untrusted: 0 })
  })
})

describe("updateRecords: the locked read-modify-write of the approvals store", () => {
  it("f sees the trusted records expired and newest first, and the clock's time; the next records are signed, sorted and written after them the untrusted ones", async () => {
    const h = await harness()
    h.world.now = T0 + EXPIRY_MS + 5
    await h.seed([
      record({ id: "approval_a", createdAt: iso(T0), status: "denied" }),
      record({ id: "approval_b", createdAt: iso(T0 + 10), status: "pending" })
    ])
    const signed = (await h.stored())!.records
    const planted = record({ id: "approval_planted" })
    await h.seed([planted, ...signed], false)
    const seen: Array<unknown> = []
    const added = record({ id: "approval_c", createdAt: iso(T0 + EXPIRY_MS), status: "pending" })
    const result = await h.run(
      updateRecords((records, now) => {
        seen.push(
          records.map((r) => [r.id, r.status]),
          now
        )
        return Effect.succeed(["done", [...records.slice().reverse(), added]] as const)
      })
    )
    expect(result).toBe("done")
    expect(seen).toEqual([
      [
        ["approval_b", "pending"],
        ["approval_a", "expired"]
      ],
      T0 + EXPIRY_MS + 5
    ])
    const after = await h.stored()
    expect(after!.version).toBe(1)
    const trustedPart = after!.records.slice(0, 3)
    expect(trustedPart.map((r) => [r.id, r.status])).toEqual([
      ["approval_c", "pending"],
      ["approval_b", "pending"],
      ["approval_a", "expired"]
    ])
    for (const r of trustedPart) expect(r.mac).toBe(hmac(recordPayload(r)))
    expect(after!.records[3]).toEqual(planted)
    expect(after!.records).toHaveLength(4)
  })

  it("only a real change is written: an update that changes nothing leaves the store unwritten (absent stays absent)", async () => {
    const h = await harness()
    await h.run(updateRecords((records) => Effect.succeed([undefined, records] as const)))
    expect(h.world.writes).toBe(0)
    expect(await h.stored()).toBeUndefined()
    await h.seed([record({ status: "pending" })])
    await h.run(updateRecords((records) => Effect.succeed([undefined, records] as const)))
    expect(h.world.writes).toBe(0)
    // expiry is a change: it is persisted
    h.world.now = T0 + EXPIRY_MS
    await h.run(updateRecords((records) => Effect.succeed([undefined, records] as const)))
    expect(h.world.writes).toBe(1)
    expect((await h.stored())!.records[0]!.status).toBe("expired")
  })

  it("STORE_FULL when 300 pending records leave no room, with the repair; nothing is written", async () => {
    const h = await harness()
    const pending = Array.from({ length: MAX_RECORDS }, (_, index) =>
      record({ id: `approval_${index}`, status: "pending", createdAt: iso(T0 + index) })
    )
    await h.seed(pending)
    h.world.writes = 0
    h.world.now = T0 + 1000
    const result = await h.attempt(
      updateRecords((records) =>
        Effect.succeed([
          undefined,
          [record({ id: "approval_new", status: "pending", createdAt: iso(T0 + 999) }), ...records]
        ] as const)
      )
    )
    expect(failureOf(result)).toEqual(
      expectedError(
        "STORE_FULL",
        "The approvals store holds 300 records that are all pending, denied or approved plans; the user must decide (/accept or /deny) some pending records before anything new can be staged."
      )
    )
    expect(h.world.writes).toBe(0)
  })

  it("the cap drops the oldest terminal record; untrusted records are kept outside the cap, at most 300 of them", async () => {
    const h = await harness()
    const trusted = Array.from({ length: MAX_RECORDS }, (_, index) =>
      record({ id: `approval_${index}`, status: index === 0 ? "consumed" : "pending", createdAt: iso(T0 + index) })
    )
    await h.seed(trusted)
    const signed = (await h.stored())!.records
    const planted = Array.from({ length: MAX_RECORDS + 1 }, (_, index) => record({ id: `approval_planted_${index}` }))
    await h.seed([...signed, ...planted], false)
    h.world.now = T0 + 1000
    await h.run(
      updateRecords((records) =>
        Effect.succeed([
          undefined,
          [record({ id: "approval_new", status: "pending", createdAt: iso(T0 + 999) }), ...records]
        ] as const)
      )
    )
    const after = (await h.stored())!.records
    expect(after).toHaveLength(MAX_RECORDS + MAX_RECORDS)
    expect(after.slice(0, MAX_RECORDS).map((r) => r.id)).not.toContain("approval_0")
    expect(after[0]!.id).toBe("approval_new")
    expect(after.slice(MAX_RECORDS)).toEqual(planted.slice(0, MAX_RECORDS))
  })
})

describe("the gate's texts", () => {
  it("destructiveRefusal names the command, the setting, each operation with its path and alternative", () => {
    const refusal = destructiveRefusal({
      command: "vcs.checkout",
      reasons: [
        { operation: "checkout", path: "src", alternative: "branch with create: true" },
        { operation: "delete" },
        { operation: "reset", path: "a.txt" }
      ]
    })
    expect(fields(refusal)).toEqual(
      expectedError(
        "PROTECTED_PATH",
        "Refused vcs.checkout: it is destructive and Allow destructive commits (allowDestructiveEdits) is off. Destructive because of: checkout src (non-destructive alternative: branch with create: true); delete; reset a.txt. Use the non-destructive alternative, or ask the user to turn on allowDestructiveEdits; no approval can lift this.",
        {
          command: "vcs.checkout",
          setting: "allowDestructiveEdits",
          operations: [
            { operation: "checkout", path: "src", alternative: "branch with create: true" },
            { operation: "delete" },
            { operation: "reset", path: "a.txt" }
          ]
        }
      )
    )
    expect(destructiveRefusal({ command: "x", reasons: [] }).message).toBe(
      "Refused x: it is destructive and Allow destructive commits (allowDestructiveEdits) is off. Use the non-destructive alternative, or ask the user to turn on allowDestructiveEdits; no approval can lift this."
    )
  })

  it("stagedSummary gives the id, both replies and the exact resume call", () => {
    expect(stagedSummary("approval_1", "Commit tx_1", { tool: "workspace_edit", arguments: { b: 1, a: "x" } })).toBe(
      'Awaiting approval approval_1: Commit tx_1. The user must reply /accept approval_1 (or /deny approval_1 <reason>). After approval, call workspace_edit with {"b":1,"a":"x"}.'
    )
  })
})

describe("gated: Manual (0)", () => {
  it("stages a pending record bound to the hash of tool, kind and the Plan's encoding; the whole envelope part; the interpreter never ran", async () => {
    const h = await harness({ settings: { permissionMode: 0 } })
    const { calls, interpret } = interpreter()
    const req = request({
      preview: {
        data: { path: "a.txt", status: "overridden?" },
        artifacts: [{ kind: "diff", path: ".agentic/tx/changes.diff", sha256: "0".repeat(64), bytes: 3 }]
      }
    })
    h.world.now = T0 + 7
    const result = await h.run(gated(req, interpret))
    expect(calls).toEqual([])
    const id = stagedId(result)
    expect(id).toMatch(/^approval_[0-9a-f]{16}$/)
    expect(result).toEqual({
      summary: stagedSummary(id, "Apply tx_1", req.resume),
      retention: {
        importance: "critical",
        facts: [`approval ${id} pending: Apply tx_1`, "permission mode Manual (0)"]
      },
      data: {
        status: "overridden?",
        mode: "manual",
        approval: { id, kind: "transaction", title: "Apply tx_1", destructive: false, resume: req.resume },
        path: "a.txt"
      },
      artifacts: req.preview!.artifacts
    })
    const stored = (await h.stored())!.records
    expect(stored).toHaveLength(1)
    const { mac, ...fields } = stored[0]!
    expect(fields).toEqual({
      id,
      kind: "transaction",
      status: "pending",
      title: "Apply tx_1",
      createdAt: iso(T0 + 7),
      hash: await hashOf(req),
      tool: "workspace_edit",
      operation: "edit.apply",
      destructive: false,
      resume: req.resume,
      prompt: req.prompt
    })
    expect(mac).toBe(hmac(recordPayload(stored[0]!)))
  })

  it("a staged call without preview has no artifacts member and only the gate's data", async () => {
    const h = await harness({ settings: { permissionMode: 0 } })
    const result = await h.run(gated(request(), interpreter().interpret))
    expect(Object.keys(result).sort()).toEqual(["data", "retention", "summary"])
    expect(Object.keys(result.data as object).sort()).toEqual(["approval", "mode", "status"])
    expect((result.data as { status: string }).status).toBe("pending_approval")
  })

  it("the stored prompt is clipped; the staged record takes the tool's recorded request (title, kind, resume, prompt), a destructive one is marked", async () => {
    const h = await harness({ settings: { permissionMode: 0, allowDestructiveEdits: true } })
    const req = request({ destructive: { command: "edit.apply", reasons: [{ operation: "delete", path: "a.txt" }] } })
    const recordedRequest: GateRequest = {
      ...req,
      tool: "workspace_vcs",
      operation: "vcs.push",
      kind: "vcs",
      title: "Recorded title",
      prompt: { _tag: "transaction", diff: "d".repeat(RECORD_DIFF_CHARS + 1), paths: ["a.txt"] },
      resume: { tool: "workspace_vcs", arguments: { id: 2 } }
    }
    let recordRuns = 0
    const result = await h.run(
      gated(
        req,
        interpreter().interpret,
        Effect.sync(() => (recordRuns++, recordedRequest))
      )
    )
    expect(recordRuns).toBe(1)
    const approval = (result.data as { approval: Record<string, unknown> }).approval
    expect(approval).toEqual({
      id: approval["id"],
      kind: "vcs",
      title: "Recorded title",
      destructive: true,
      resume: recordedRequest.resume
    })
    expect(result.summary).toContain('call workspace_vcs with {"id":2}')
    const stored = (await h.stored())!.records[0]!
    expect(stored.tool).toBe("workspace_vcs")
    expect(stored.operation).toBe("vcs.push")
    expect(stored.destructive).toBe(true)
    // the hash stays the one of the request the gate was given
    expect(stored.hash).toBe(await hashOf(req))
    expect((stored.prompt as { diff: string }).diff).toBe(
      `${"d".repeat(RECORD_DIFF_CHARS)}\n… (diff clipped; the full diff is in the transaction's changes.diff)`
    )
  })

  it("'Re-issuing the same call while it is pending returns the same approval id instead of staging a duplicate'", async () => {
    const h = await harness({ settings: { permissionMode: 0 } })
    const first = await h.run(gated(request(), interpreter().interpret))
    h.world.now = T0 + 1000
    h.world.writes = 0
    const second = await h.run(gated(request({ title: "Another title" }), interpreter().interpret))
    expect(stagedId(second)).toBe(stagedId(first))
    expect((second.data as { approval: { title: string } }).approval.title).toBe("Apply tx_1")
    expect((await h.stored())!.records).toHaveLength(1)
    expect(h.world.writes).toBe(0)
  })

  it("an approved identical operation runs once and is consumed at that time; the next identical call is staged afresh", async () => {
    const h = await harness({ settings: { permissionMode: 0 } })
    const req = request()
    const other = record({ id: "approval_other", hash: "other", status: "approved", createdAt: iso(T0 - 1) })
    await h.seed([record({ id: "approval_ok", hash: await hashOf(req), status: "approved" }), other])
    h.world.now = T0 + 60_000
    const { calls, interpret } = interpreter()
    const result = await h.run(gated(req, interpret))
    expect(result).toEqual({ summary: "ran Apply tx_1" })
    expect(calls).toEqual([req])
    const stored = (await h.stored())!.records
    const { mac: _mac, ...consumed } = stored.find((r) => r.id === "approval_ok")!
    expect(consumed).toEqual({
      ...record({ id: "approval_ok", hash: await hashOf(req) }),
      status: "consumed",
      consumedAt: iso(T0 + 60_000)
    })
    expect(stored.find((r) => r.id === "approval_other")!.status).toBe("approved")
    const again = await h.run(gated(req, interpret))
    expect(calls).toHaveLength(1)
    expect(stagedId(again)).not.toBe("approval_ok")
  })

  it("'it is consumed once the mutation succeeds': an interpreter that fails leaves the approval approved (no consumedAt) and its error is the call's", async () => {
    const h = await harness({ settings: { permissionMode: 0 } })
    const req = request()
    const other = record({
      id: "approval_other",
      hash: "other",
      status: "consumed",
      consumedAt: iso(T0),
      createdAt: iso(T0 - 1)
    })
    await h.seed([record({ id: "approval_ok", hash: await hashOf(req), status: "approved" }), other])
    const failure = toolError("EDIT_CONFLICT", "the file changed")
    const { calls, interpret } = interpreter(failure)
    h.world.now = T0 + 5
    expect(failureOf(await h.attempt(gated(req, interpret)))).toEqual(fields(failure))
    expect(calls).toHaveLength(1)
    const stored = (await h.stored())!.records
    const { mac, ...released } = stored.find((r) => r.id === "approval_ok")!
    expect(released).toEqual(record({ id: "approval_ok", hash: await hashOf(req), status: "approved" }))
    expect(mac).toBe(hmac(recordPayload(released)))
    const { mac: _m, ...untouched } = stored.find((r) => r.id === "approval_other")!
    expect(untouched).toEqual(other)
    // and it runs on the next try
    const ok = interpreter()
    expect(await h.run(gated(req, ok.interpret))).toEqual({ summary: "ran Apply tx_1" })
  })

  it("one approval runs one call: two identical calls racing on it run the interpreter once, the other is staged", async () => {
    const h = await harness({ settings: { permissionMode: 0 } })
    const req = request()
    await h.seed([record({ id: "approval_ok", hash: await hashOf(req), status: "approved" })])
    let runs = 0
    const interpret = () =>
      Effect.gen(function* () {
        runs++
        yield* Effect.yieldNow()
        yield* Effect.yieldNow()
        return { summary: "ran" } as ToolResult
      })
    const results = await h.run(Effect.all([gated(req, interpret), gated(req, interpret)], { concurrency: 2 }))
    expect(runs).toBe(1)
    expect(results.filter((r) => r.summary === "ran")).toHaveLength(1)
    expect(
      results.filter((r) => (r.data as { status?: string } | undefined)?.status === "pending_approval")
    ).toHaveLength(1)
  })

  it("'a denial blocks the identical operation with APPROVAL_DENIED' naming it; a different operation is staged; nothing is written", async () => {
    const h = await harness({ settings: { permissionMode: 0 } })
    const req = request()
    await h.seed([record({ id: "approval_no", hash: await hashOf(req), status: "denied" })])
    h.world.writes = 0
    const { calls, interpret } = interpreter()
    expect(failureOf(await h.attempt(gated(req, interpret)))).toEqual(
      expectedError(
        "APPROVAL_DENIED",
        "The user denied this exact operation (approval_no). Do not re-issue it unchanged: change it or ask the user.",
        { approvalId: "approval_no" }
      )
    )
    expect(h.world.writes).toBe(0)
    const changed = await h.run(gated(request({ normalized: { _tag: "Apply", path: "b.txt" } }), interpret))
    expect((changed.data as { status: string }).status).toBe("pending_approval")
    expect(calls).toEqual([])
  })

  it("'Records expire 24 hours after they were created': an expired approval does not run, the call is staged afresh and the expiry is stored", async () => {
    const h = await harness({ settings: { permissionMode: 0 } })
    const req = request()
    await h.seed([record({ id: "approval_ok", hash: await hashOf(req), status: "approved" })])
    h.world.now = T0 + EXPIRY_MS
    const { calls, interpret } = interpreter()
    const result = await h.run(gated(req, interpret))
    expect(calls).toEqual([])
    expect(stagedId(result)).not.toBe("approval_ok")
    expect((await h.stored())!.records.map((r) => [r.id === "approval_ok", r.status])).toEqual([
      [false, "pending"],
      [true, "expired"]
    ])
  })

  it("an approval given by another workspace's key (or planted unsigned) is not honoured", async () => {
    const h = await harness({ settings: { permissionMode: 0 } })
    const req = request()
    const foreign = record({ id: "approval_foreign", hash: await hashOf(req), status: "approved" })
    await h.seed([{ ...foreign, mac: hmac(recordPayload(foreign), OTHER_KEY_BYTES) }], false)
    const { calls, interpret } = interpreter()
    const result = await h.run(gated(req, interpret))
    expect(calls).toEqual([])
    expect(stagedId(result)).not.toBe("approval_foreign")
  })

  it("a sub-agent run with nothing to gate runs in Manual without a record", async () => {
    const h = await harness({ settings: { permissionMode: 0 } })
    const { calls, interpret } = interpreter()
    const req = request({ kind: "agent", nothingToGateInManual: true })
    expect(await h.run(gated(req, interpret))).toEqual({ summary: "ran Apply tx_1" })
    expect(calls).toHaveLength(1)
    expect(await h.stored()).toBeUndefined()
    expect(h.world.writes).toBe(0)
    // nothingToGateInManual: false is staged
    const staged = await h.run(gated(request({ kind: "agent", nothingToGateInManual: false }), interpret))
    expect((staged.data as { status: string }).status).toBe("pending_approval")
  })
})

describe("gated: Auto (2) and Plan (1)", () => {
  it("Auto runs at once, writes no store; confirm: 'always' is staged in Auto, in the mode's name", async () => {
    const h = await harness({ settings: { permissionMode: 2 } })
    const { calls, interpret } = interpreter()
    expect(await h.run(gated(request(), interpret))).toEqual({ summary: "ran Apply tx_1" })
    expect(calls).toHaveLength(1)
    expect(h.world.writes).toBe(0)
    const staged = await h.run(gated(request({ confirm: "always" }), interpret))
    expect(calls).toHaveLength(1)
    expect((staged.data as { mode: string }).mode).toBe("auto")
    expect(staged.retention?.facts?.[1]).toBe("permission mode Auto (2)")
  })

  it("Plan without a plan: APPROVAL_REQUIRED saying to propose one; with a pending plan: naming it; nothing runs or is written", async () => {
    const h = await harness({ settings: { permissionMode: 1 } })
    const { calls, interpret } = interpreter()
    expect(failureOf(await h.attempt(gated(request(), interpret)))).toEqual(
      expectedError(
        "APPROVAL_REQUIRED",
        'Permission mode is Plan (1) and no plan is approved: edit.apply cannot run. Propose a plan with workspace_plan {"action":"propose",...}, restate it to the user and wait for /accept.'
      )
    )
    expect(h.world.writes).toBe(0)
    await h.seed([record({ id: "plan_1", kind: "plan", status: "pending" })])
    h.world.writes = 0
    expect(failureOf(await h.attempt(gated(request(), interpret)))).toEqual(
      expectedError(
        "APPROVAL_REQUIRED",
        "Permission mode is Plan (1) and plan plan_1 is still waiting for the user: edit.apply cannot run. Stop and wait for /accept plan_1.",
        { pendingPlanId: "plan_1" }
      )
    )
    expect(h.world.writes).toBe(0)
    expect(calls).toEqual([])
  })

  it("a refusal in Plan mode comes after the tool's record of the call, names the recorded operation, and stores the expiry it applied", async () => {
    const h = await harness({ settings: { permissionMode: 1 } })
    await h.seed([record({ id: "approval_old", status: "pending", createdAt: iso(T0) })])
    h.world.now = T0 + EXPIRY_MS
    let recordRuns = 0
    const recorded = request({ operation: "edit.recorded" })
    const { calls, interpret } = interpreter()
    const result = await h.attempt(
      gated(
        request(),
        interpret,
        Effect.sync(() => (recordRuns++, recorded))
      )
    )
    expect(failureOf(result).message).toContain("no plan is approved: edit.recorded cannot run")
    expect(recordRuns).toBe(1)
    expect(calls).toEqual([])
    expect((await h.stored())!.records.map((r) => r.status)).toEqual(["expired"])
  })

  it("Plan with an approved plan runs unasked, and the plan stays approved; a plan in the mode shows 'plan' when staged", async () => {
    const h = await harness({ settings: { permissionMode: 1 } })
    await h.seed([record({ id: "plan_1", kind: "plan", status: "approved" })])
    const { calls, interpret } = interpreter()
    expect(await h.run(gated(request(), interpret))).toEqual({ summary: "ran Apply tx_1" })
    expect(calls).toHaveLength(1)
    expect((await h.stored())!.records.map((r) => r.status)).toEqual(["approved"])
    const staged = await h.run(gated(request({ confirm: "always" }), interpret))
    expect((staged.data as { mode: string }).mode).toBe("plan")
  })
})

describe("gated: the destructive ceiling", () => {
  for (const mode of [0, 1, 2] as const) {
    it(`'Without it they fail with PROTECTED_PATH in every mode, before any approval is considered' (mode ${mode}): the tool's record is never made, nothing is written`, async () => {
      const h = await harness({ settings: { permissionMode: mode } })
      const req = request({ destructive: { command: "edit.apply", reasons: [{ operation: "delete", path: "a.txt" }] } })
      await h.seed([record({ id: "approval_ok", hash: await hashOf(req), status: "approved" })])
      h.world.writes = 0
      let recordRuns = 0
      const { calls, interpret } = interpreter()
      const result = await h.attempt(
        gated(
          req,
          interpret,
          Effect.sync(() => (recordRuns++, req))
        )
      )
      expect(failureOf(result)).toEqual(fields(destructiveRefusal(req.destructive!)))
      expect(recordRuns).toBe(0)
      expect(calls).toEqual([])
      expect(h.world.writes).toBe(0)
      expect((await h.stored())!.records[0]!.status).toBe("approved")
    })
  }

  it("with allowDestructiveEdits a destructive operation follows the mode (Auto runs it)", async () => {
    const h = await harness({ settings: { permissionMode: 2, allowDestructiveEdits: true } })
    const { calls, interpret } = interpreter()
    const req = request({ destructive: { command: "edit.apply", reasons: [] } })
    expect(await h.run(gated(req, interpret))).toEqual({ summary: "ran Apply tx_1" })
    expect(calls).toEqual([req])
  })
})

describe("gated: the planted faults of `verify --plant-fault`", () => {
  it("none: the hash covers before and current; accept-after-change drops them from what the approval is bound to", async () => {
    const plain = await harness({ settings: { permissionMode: 0 } })
    await plain.run(gated(request(), interpreter().interpret))
    expect((await plain.stored())!.records[0]!.hash).toBe(await hashOf(request()))
    const faulty = await harness({ settings: { permissionMode: 0 }, fault: "accept-after-change" })
    await faulty.run(gated(request(), interpreter().interpret))
    const loose = await hashOf(request(), { _tag: "Apply", path: "a.txt" })
    expect(loose).not.toBe(await hashOf(request()))
    expect((await faulty.stored())!.records[0]!.hash).toBe(loose)
  })

  it("skip-denial ignores a live denial (the operation is staged again); other records still count", async () => {
    const h = await harness({ settings: { permissionMode: 0 }, fault: "skip-denial" })
    const req = request()
    await h.seed([
      record({ id: "approval_no", hash: await hashOf(req), status: "denied" }),
      record({ id: "approval_wait", hash: await hashOf(req), status: "pending", createdAt: iso(T0 - 1) })
    ])
    const result = await h.run(gated(req, interpreter().interpret))
    expect(stagedId(result)).toBe("approval_wait")
    // a record stored without the field is shown as not destructive
    expect((result.data as { approval: { destructive: unknown } }).approval.destructive).toBe(false)
  })

  it("without a planted fault the gate reads GateFault (keyed 'agentic-workspace/GateFault') as 'none'", async () => {
    expect(await Effect.runPromise(GateFault)).toBe("none")
    expect(GateFault.key).toBe("agentic-workspace/GateFault")
  })
})

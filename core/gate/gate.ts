/**
 * The gate: wraps a tool's interpreter. It hashes the exact operation, asks the pure `decide` for
 * run / stage / refuse against the approvals store, and only on "run" calls the interpreter; an
 * approval is consumed only when the interpreter succeeds. Tools never read the permission mode.
 */
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import type { Artifact, ToolResult } from "../protocol/envelope.ts"
import { toolError, type ToolError } from "../protocol/errors.ts"
import { CurrentSettings } from "../services/CurrentSettings.ts"
import { modeLabel, modeName, type Settings } from "../settings/settings.ts"
import { StateReads, StateStore } from "../store/StateStore.ts"
import { defined } from "../text/defined.ts"
import { hashOperation, newId, stableStringify } from "./hash.ts"
import { WorkspaceKey } from "./key.ts"
import { type Prompt, storedPrompt } from "./prompt.ts"
import {
  APPROVALS_FILE,
  type ApprovalRecord,
  type ApprovalState,
  ApprovalRecordSchema,
  ApprovalStoreSchema,
  capRecords,
  decide,
  type Decision,
  type DestructiveReason,
  emptyState,
  expireRecords,
  MAX_RECORDS,
  newestFirst,
  type RecordKind,
  type ResumeCall
} from "./records.ts"

/** The faults `verify` can plant in the gate to prove its model-based test bites; "none" everywhere else. */
export type GateFaultName = "none" | "skip-denial" | "accept-after-change"

/**
 * Test only: a planted fault. "skip-denial" makes the gate ignore live denials (so a denied operation is
 * staged or run again). "accept-after-change" binds an approval to the operation without the state of the
 * paths it touches (the Plan's `before` and `current` fields), so an approval given over one content of a
 * file is accepted after the file changed. Nothing but `agentic-workspace verify --plant-fault` and its specs provides it.
 */
export class GateFault extends Context.Reference<GateFault>()("agentic-workspace/GateFault", {
  defaultValue: (): GateFaultName => "none"
}) {}

/** A Plan's Schema encoding: stable JSON, tagged. This is what an approval is bound to. */
export interface EncodedPlan {
  readonly _tag: string
  readonly [field: string]: unknown
}

/** Everything the gate needs to know about one mutating call (built by the registry from the tool's Planned). */
export interface GateRequest {
  /** The wire tool name, e.g. "workspace_edit". */
  readonly tool: string
  /** The operation name used in envelopes, e.g. "edit.apply". */
  readonly operation: string
  readonly kind: Exclude<RecordKind, "plan">
  /** "always": staged in every mode (Auto and an approved plan included). */
  readonly confirm?: "always"
  /** Manual mode runs it without staging: it has nothing to gate (a sub-agent run without commands or web). */
  readonly nothingToGateInManual?: boolean
  /** What the user is asked to approve, e.g. "Commit tx_1234". */
  readonly title: string
  /** The Plan's Schema encoding; the SHA-256 of its stable JSON (with tool and kind) is what an approval is bound to. */
  readonly normalized: EncodedPlan
  /** What the user is shown: the diff, the argv and cwd, the refs, the URL, the control, the reach. */
  readonly prompt: Prompt
  /** Present when the operation is destructive: the command and what made it so. */
  readonly destructive?: { readonly command: string; readonly reasons: ReadonlyArray<DestructiveReason> }
  /** The exact call that runs the operation after the user's /accept. */
  readonly resume: ResumeCall
  /** The tool's normal preview fields, shown beside a staged approval. */
  readonly preview?: { readonly data?: Record<string, unknown>; readonly artifacts?: ReadonlyArray<Artifact> }
}

/** What a record's MAC covers: every field but the MAC (id, hash, kind, status and times among them). */
export const recordPayload = (record: ApprovalRecord): string =>
  `agentic-workspace/approval-record/v1\n${stableStringify({ ...record, mac: undefined })}`

/** The record with its MAC under the workspace key. */
export const signRecord = (record: ApprovalRecord): Effect.Effect<ApprovalRecord, never, WorkspaceKey> =>
  Effect.flatMap(WorkspaceKey, (key) => Effect.map(key.sign(recordPayload(record)), (mac) => ({ ...record, mac })))

/** The stored records split into those whose MAC verifies under this workspace's key and the rest. */
export const partitionRecords = (
  records: ReadonlyArray<unknown>
): Effect.Effect<
  { readonly trusted: ReadonlyArray<ApprovalRecord>; readonly untrusted: ReadonlyArray<unknown> },
  never,
  WorkspaceKey
> =>
  Effect.gen(function* () {
    const key = yield* WorkspaceKey
    const trusted: Array<ApprovalRecord> = []
    const untrusted: Array<unknown> = []
    for (const candidate of records) {
      // A record that does not decode against its Schema, or whose MAC does not verify, is untrusted (kept, counted).
      const decoded = Schema.decodeUnknownOption(ApprovalRecordSchema, { onExcessProperty: "preserve" })(candidate)
      const record = Option.getOrUndefined(decoded)
      if (
        record !== undefined &&
        typeof record.mac === "string" &&
        (yield* key.verify(recordPayload(record), record.mac))
      )
        trusted.push(record)
      else untrusted.push(candidate)
    }
    return { trusted, untrusted }
  })

const storedRecords = (state: typeof ApprovalStoreSchema.Type | undefined): ReadonlyArray<unknown> =>
  state?.records ?? []

/**
 * The records with expiry applied, and how many stored records are untrusted (their MAC does not verify:
 * planted, hand-edited, copied from another workspace or written before records were signed). A read:
 * nothing is written.
 */
export const loadRecordState = Effect.gen(function* () {
  const store = yield* StateReads
  const now = yield* Clock.currentTimeMillis
  const { trusted, untrusted } = yield* partitionRecords(
    storedRecords(yield* store.readJson(APPROVALS_FILE, ApprovalStoreSchema))
  )
  return { records: newestFirst(expireRecords(trusted, now)), untrusted: untrusted.length }
})

/** Loads the trusted records with expiry applied (a read: nothing is written). */
export const loadRecords = Effect.map(loadRecordState, (state) => state.records)

/** A change of the approval records: the result and the next records, from the current ones and the time. */
export type RecordsChange<B, E, R> = (
  records: ReadonlyArray<ApprovalRecord>,
  now: number
) => Effect.Effect<readonly [B, ReadonlyArray<ApprovalRecord>], E, R>

/**
 * A locked read-modify-write of the approvals store: `f` sees the trusted, expired, newest-first records and
 * returns its result and the next records, which are capped and signed before they are written. Untrusted
 * records are kept as they were (so capabilities can count them), after the trusted ones and outside the cap.
 */
export const updateRecords = <B, E, R>(
  f: RecordsChange<B, E, R>
): Effect.Effect<B, E | ToolError, StateStore | WorkspaceKey | R> =>
  Effect.gen(function* () {
    const store = yield* StateStore
    return yield* store.locked(
      APPROVALS_FILE,
      Effect.gen(function* () {
        const current = yield* store.readJson(APPROVALS_FILE, ApprovalStoreSchema)
        const now = yield* Clock.currentTimeMillis
        const { trusted, untrusted } = yield* partitionRecords(storedRecords(current))
        const records = newestFirst(expireRecords(trusted, now))
        const [result, next] = yield* f(records, now)
        const capped = capRecords(newestFirst(next))
        if (capped === undefined) {
          return yield* Effect.fail(
            toolError(
              "STORE_FULL",
              "The approvals store holds 300 records that are all pending, denied or approved plans; the user must decide (/accept or /deny) some pending records before anything new can be staged."
            )
          )
        }
        const signed = yield* Effect.forEach(capped, signRecord)
        const state: ApprovalState = {
          version: 1,
          records: [...signed, ...(untrusted.slice(0, MAX_RECORDS) as ReadonlyArray<ApprovalRecord>)]
        }
        // Only a real change is written: a call that runs or is refused leaves the store (and the disk) as it was.
        if (stableStringify(state) !== stableStringify(current ?? emptyState))
          yield* store.writeJson(APPROVALS_FILE, state)
        return result
      })
    )
  })

/** The refusal for a destructive operation while allowDestructiveEdits is off. */
export const destructiveRefusal = (destructive: NonNullable<GateRequest["destructive"]>): ToolError => {
  const parts = destructive.reasons.map(
    (reason) =>
      `${reason.operation}${reason.path === undefined ? "" : ` ${reason.path}`}${
        reason.alternative === undefined ? "" : ` (non-destructive alternative: ${reason.alternative})`
      }`
  )
  return toolError(
    "PROTECTED_PATH",
    `Refused ${destructive.command}: it is destructive and Allow destructive commits (allowDestructiveEdits) is off.${
      parts.length > 0 ? ` Destructive because of: ${parts.join("; ")}.` : ""
    } Use the non-destructive alternative, or ask the user to turn on allowDestructiveEdits; no approval can lift this.`,
    { command: destructive.command, setting: "allowDestructiveEdits", operations: destructive.reasons }
  )
}

/** The text a model is given for a staged call: the id, the user's two replies and the resume call. */
export const stagedSummary = (id: string, title: string, resume: ResumeCall): string =>
  `Awaiting approval ${id}: ${title}. The user must reply /accept ${id} (or /deny ${id} <reason>). After approval, call ${resume.tool} with ${JSON.stringify(resume.arguments)}.`

/** The envelope part of a staged call. */
const stagedResult = (request: GateRequest, record: ApprovalRecord, mode: 0 | 1 | 2): ToolResult => ({
  summary: stagedSummary(record.id, record.title, request.resume),
  retention: {
    importance: "critical",
    facts: [`approval ${record.id} pending: ${record.title}`, `permission mode ${modeLabel(mode)}`]
  },
  data: {
    status: "pending_approval",
    mode: modeName(mode),
    approval: {
      id: record.id,
      kind: record.kind,
      title: record.title,
      destructive: record.destructive ?? false,
      resume: request.resume
    },
    ...request.preview?.data
  },
  ...defined({ artifacts: request.preview?.artifacts })
})

/** What the locked update decided, and the record a Stage decision is about (new or already pending). */
type Outcome = { readonly decision: Decision; readonly record: ApprovalRecord | undefined }

/** `decide` on some records, for this request under these settings (and the planted fault, if any). */
const decisionFor =
  (request: GateRequest, settings: Settings, fault: GateFaultName, hash: string) =>
  (records: ReadonlyArray<ApprovalRecord>): Decision =>
    decide({
      mode: settings.permissionMode,
      allowDestructiveEdits: settings.allowDestructiveEdits,
      destructive: request.destructive !== undefined,
      ...defined({ confirm: request.confirm }),
      ...(request.nothingToGateInManual === true ? { nothingToGateInManual: true } : {}),
      hash,
      records: fault === "skip-denial" ? records.filter((candidate) => candidate.status !== "denied") : records
    })

/** The hash an approval is bound to: the Plan's encoding with tool and kind (under "accept-after-change", without the paths' state). */
const operationHash = (request: GateRequest, fault: GateFaultName) => {
  const bound =
    fault === "accept-after-change"
      ? { ...request.normalized, before: undefined, current: undefined }
      : request.normalized
  return hashOperation({ tool: request.tool, kind: request.kind, operation: bound })
}

/** The records with approval `id` consumed at `now`. */
const claimed = (records: ReadonlyArray<ApprovalRecord>, id: string, now: number): ReadonlyArray<ApprovalRecord> =>
  records.map((candidate) =>
    candidate.id === id
      ? { ...candidate, status: "consumed" as const, consumedAt: new Date(now).toISOString() }
      : candidate
  )

/** A new pending record of the recorded call, bound to `hash`. */
const pendingRecord = (recorded: GateRequest, hash: string, now: number) =>
  Effect.gen(function* () {
    const staged: ApprovalRecord = {
      id: yield* newId("approval"),
      kind: recorded.kind,
      status: "pending",
      title: recorded.title,
      createdAt: new Date(now).toISOString(),
      hash,
      tool: recorded.tool,
      operation: recorded.operation,
      destructive: recorded.destructive !== undefined,
      resume: recorded.resume,
      prompt: storedPrompt(recorded.prompt)
    }
    return staged
  })

/**
 * Inside the store's lock: the decision on the current records, and the records after it — the approval a
 * "Run" spends claimed, or the call staged (a new pending record, unless an identical one is pending already).
 */
const decideLocked =
  (query: (records: ReadonlyArray<ApprovalRecord>) => Decision, recorded: GateRequest, hash: string) =>
  (records: ReadonlyArray<ApprovalRecord>, now: number) =>
    Effect.gen(function* () {
      const decision = query(records)
      if (decision._tag === "Run" && decision.consume !== undefined) {
        // Claim the approval inside the lock, so a concurrent identical call (another process) cannot
        // spend it too; it is handed back if the interpreter does not succeed.
        return [{ decision, record: undefined }, claimed(records, decision.consume, now)] as const
      }
      if (decision._tag !== "Stage") return [{ decision, record: undefined }, records] as const
      if (decision.existing !== undefined) {
        const existing = records.find((candidate) => candidate.id === decision.existing)
        return [{ decision, record: existing }, records] as const
      }
      const staged = yield* pendingRecord(recorded, hash, now)
      return [{ decision, record: staged }, [staged, ...records]] as const
    })

/** Hands a claimed approval `id` back: approved again, its consumedAt dropped (a failure to write is ignored). */
const releaseApproval = (id: string) =>
  updateRecords((records) =>
    Effect.succeed([
      undefined,
      records.map((candidate) => {
        if (candidate.id !== id || candidate.status !== "consumed") return candidate
        const { consumedAt: _consumedAt, ...rest } = candidate
        return { ...rest, status: "approved" as const }
      })
    ] as const)
  ).pipe(Effect.ignore)

/**
 * The gate, called by the registry only (tools declare `gate: kind`; they never call this). It hashes
 * the Plan's encoding and asks the pure `decide`, first on a read of the store, so a call over the
 * destructive ceiling fails before anything is written; then `record` keeps the tool's own record of
 * the call (edit's planned transaction), and `decide` runs again inside the store's lock, where an
 * approval is claimed, the call staged or refused. `interpret` runs only on "run"; an approval is
 * consumed only when it succeeds.
 */
export const gated = <R>(
  request: GateRequest,
  interpret: (request: GateRequest) => Effect.Effect<ToolResult, ToolError, R>,
  record?: Effect.Effect<GateRequest, ToolError, R>
): Effect.Effect<ToolResult, ToolError, R | StateStore | StateReads | CurrentSettings | WorkspaceKey> =>
  Effect.gen(function* () {
    const settings = yield* CurrentSettings
    const fault = yield* GateFault
    const hash = yield* operationHash(request, fault)
    const query = decisionFor(request, settings, fault, hash)
    // The destructive ceiling comes first in `decide` and writes nothing: refused here, on a read of the
    // store, before the tool records anything. Every other decision is taken (and expiry persisted) in the lock.
    const first = query(yield* loadRecords)
    if (first._tag === "Refuse" && first.code === "PROTECTED_PATH") return yield* Effect.fail(refusal(first, request))
    const recorded = record === undefined ? request : yield* record

    // Decide, and stage if needed, inside one locked update so two processes never stage twice.
    const outcome = yield* updateRecords<Outcome, never, never>(decideLocked(query, recorded, hash))
    const { decision } = outcome
    switch (decision._tag) {
      case "Stage":
        if (outcome.record === undefined) return yield* Effect.die(new Error("a staged decision without its record"))
        return stagedResult(recorded, outcome.record, settings.permissionMode)
      case "Refuse":
        return yield* Effect.fail(refusal(decision, recorded))
      case "Run": {
        if (decision.consume === undefined) return yield* interpret(recorded)
        const id = decision.consume
        // The approval is consumed only when the mutation succeeds: on failure (or interruption) it is approved again.
        return yield* Effect.onError(interpret(recorded), () => releaseApproval(id))
      }
    }
  })

const refusal = (decision: Extract<Decision, { _tag: "Refuse" }>, request: GateRequest): ToolError => {
  switch (decision.code) {
    case "PROTECTED_PATH":
      return destructiveRefusal(request.destructive ?? { command: request.operation, reasons: [] })
    case "APPROVAL_DENIED":
      return toolError(
        "APPROVAL_DENIED",
        `The user denied this exact operation (${decision.approvalId}). Do not re-issue it unchanged: change it or ask the user.`,
        { approvalId: decision.approvalId }
      )
    case "APPROVAL_REQUIRED":
      return decision.pendingPlanId === undefined
        ? toolError(
            "APPROVAL_REQUIRED",
            `Permission mode is Plan (1) and no plan is approved: ${request.operation} cannot run. Propose a plan with workspace_plan {"action":"propose",...}, restate it to the user and wait for /accept.`
          )
        : toolError(
            "APPROVAL_REQUIRED",
            `Permission mode is Plan (1) and plan ${decision.pendingPlanId} is still waiting for the user: ${request.operation} cannot run. Stop and wait for /accept ${decision.pendingPlanId}.`,
            { pendingPlanId: decision.pendingPlanId }
          )
  }
}

/**
 * The reference model of the approval gate: an oracle written from the reference's sentences
 * (docs/APPROVALS.md, the "Permission modes and gating" section of the tool reference), plainly and
 * apart from core/gate, so a test can hold the real gate against it. It is host-free and pure: every
 * function takes a state and returns a new one; nothing here reads a clock, a disk or a setting.
 *
 * What it models: the three modes; plan states (none, pending, approved, completed, superseded,
 * expired); approval records and their statuses; expiry 24 h after creation; the 300-record cap and
 * what it may drop; a denial blocking the identical operation; re-issue returning the same id;
 * consumption only on success; the destructive ceiling before any approval; the no-op exceptions; the
 * sub-agent lowering rules; and `/accept` `/deny` with and without ids.
 *
 * Operations are named by a `key`: the model's stand-in for the SHA-256 of the normalised operation.
 * Two calls are "the identical operation" exactly when their keys are equal.
 */

/** 0 Manual, 1 Plan, 2 Auto. */
export type Mode = 0 | 1 | 2

export const MODE_NAMES: Record<Mode, string> = { 0: "Manual", 1: "Plan", 2: "Auto" }

/** "Records expire 24 hours after they were created while pending, approved or denied". */
export const MODEL_EXPIRY_MS = 24 * 60 * 60 * 1000

/** "At most 300 records are kept." */
export const MODEL_MAX_RECORDS = 300

export type ModelStatus = "pending" | "approved" | "denied" | "consumed" | "completed" | "superseded" | "expired"

/** One record: an operation approval (with its key) or a plan. Ids are the model's own (the caller maps them). */
export interface ModelRecord {
  readonly id: string
  readonly plan: boolean
  readonly key?: string
  readonly status: ModelStatus
  readonly createdAt: number
  /** The order of staging: a later record has a higher seq. */
  readonly seq: number
}

export interface ModelState {
  readonly records: ReadonlyArray<ModelRecord>
  readonly nextSeq: number
}

export const initialModel: ModelState = { records: [], nextSeq: 1 }

/** The settings the gate reads. */
export interface ModelSettings {
  readonly mode: Mode
  readonly allowDestructiveEdits: boolean
}

/** One mutating call as the gate sees it. */
export interface ModelCall {
  readonly key: string
  readonly destructive: boolean
  /** Re-committing an applied transaction, rolling back one rolled back: runs, nothing to gate. */
  readonly noop?: boolean
}

/** What the gate does with a call. */
export type ModelOutcome =
  | { readonly _tag: "ran"; readonly consumed?: string; readonly noop?: boolean }
  | { readonly _tag: "staged"; readonly id: string; readonly fresh: boolean }
  | {
      readonly _tag: "refused"
      readonly code: "PROTECTED_PATH" | "APPROVAL_DENIED" | "APPROVAL_REQUIRED" | "STORE_FULL"
      readonly approvalId?: string
    }

/** A status after time has passed: pending, approved and denied become expired once 24 hours have gone by. */
export const statusAt = (record: ModelRecord, now: number): ModelStatus => {
  const live = record.status === "pending" || record.status === "approved" || record.status === "denied"
  if (!live) return record.status
  if (now >= record.createdAt + MODEL_EXPIRY_MS) return "expired"
  return record.status
}

/** The state with every record's status as of `now`. */
export const expireAt = (state: ModelState, now: number): ModelState => ({
  ...state,
  records: state.records.map((record) => ({ ...record, status: statusAt(record, now) }))
})

/** Newest first: by creation time, then by order of staging. */
export const newestFirstModel = (records: ReadonlyArray<ModelRecord>): Array<ModelRecord> =>
  [...records].sort((a, b) => b.createdAt - a.createdAt || b.seq - a.seq)

export type PlanState = "none" | "pending" | "approved" | "completed" | "superseded" | "expired"
export const PLAN_STATES: ReadonlyArray<PlanState> = [
  "none",
  "pending",
  "approved",
  "completed",
  "superseded",
  "expired"
]

/**
 * The plan state: an approved plan if there is one ("After /accept plan_* they run unasked until
 * workspace_plan(action="complete")"), else a pending one, else the status of the newest plan record (a
 * denied plan reads as none: it unlocks nothing and blocks nothing). Proposing supersedes an approved plan,
 * so the two live together only in a store no call of the toolkit wrote.
 */
export const planStateAt = (state: ModelState, now: number): PlanState => {
  const plans = newestFirstModel(state.records.filter((record) => record.plan)).map((record) => statusAt(record, now))
  if (plans.includes("approved")) return "approved"
  if (plans.includes("pending")) return "pending"
  const newest = plans[0]
  if (newest === "completed" || newest === "superseded" || newest === "expired") return newest
  return "none"
}

/** The caller's own record for an operation key, as far as the gate cares (newest first wins). */
export type OwnState = "none" | "pending" | "approved" | "denied" | "consumed" | "expired"
export const OWN_STATES: ReadonlyArray<OwnState> = ["none", "pending", "approved", "denied", "consumed", "expired"]

export const ownStateAt = (state: ModelState, key: string, now: number): OwnState => {
  const mine = newestFirstModel(state.records.filter((record) => !record.plan && record.key === key)).map((record) =>
    statusAt(record, now)
  )
  // A live denial outranks everything; then an approval; then a pending record; then the newest dead one.
  if (mine.includes("denied")) return "denied"
  if (mine.includes("approved")) return "approved"
  if (mine.includes("pending")) return "pending"
  if (mine[0] === "consumed") return "consumed"
  if (mine[0] === "expired") return "expired"
  return "none"
}

export type DestructiveClass = "safe" | "destructive, allowed" | "destructive, not allowed"
export const DESTRUCTIVE_CLASSES: ReadonlyArray<DestructiveClass> = [
  "safe",
  "destructive, allowed",
  "destructive, not allowed"
]

const destructiveClass = (call: ModelCall, settings: ModelSettings): DestructiveClass =>
  !call.destructive ? "safe" : settings.allowDestructiveEdits ? "destructive, allowed" : "destructive, not allowed"

/** The cell of the gate's table a call falls in: mode × plan state × own record × destructive class. */
export interface GateCell {
  readonly mode: Mode
  readonly plan: PlanState
  readonly own: OwnState
  readonly destructive: DestructiveClass
}

export const cellKey = (cell: GateCell): string =>
  `${MODE_NAMES[cell.mode]} | plan ${cell.plan} | own ${cell.own} | ${cell.destructive}`

/** Every cell of the table. */
export const ALL_CELLS: ReadonlyArray<GateCell> = ([0, 1, 2] as const).flatMap((mode) =>
  PLAN_STATES.flatMap((plan) =>
    OWN_STATES.flatMap((own) => DESTRUCTIVE_CLASSES.map((destructive) => ({ mode, plan, own, destructive })))
  )
)

/**
 * What the gate does in a cell, as the reference says it, in the reference's order:
 * 1. "Without it they fail with PROTECTED_PATH in every mode, before any approval is considered."
 * 2. "a denial blocks the identical operation with APPROVAL_DENIED until then" (expiry).
 * 3. Auto: "Mutating calls run immediately."
 * 4. Plan: "fail with APPROVAL_REQUIRED until the user approves a plan"; "After /accept plan_* they run unasked".
 * 5. Manual: staged; once approved it runs once ("consumed once the mutation succeeds"); "Re-issuing the
 *    same call while it is pending returns the same approval id". An approved plan changes nothing here.
 */
export const cellOutcome = (
  cell: GateCell
):
  | "run"
  | "run, consuming the approval"
  | "stage a new approval"
  | "return the pending approval's id"
  | "PROTECTED_PATH"
  | "APPROVAL_DENIED"
  | "APPROVAL_REQUIRED" => {
  if (cell.destructive === "destructive, not allowed") return "PROTECTED_PATH"
  if (cell.own === "denied") return "APPROVAL_DENIED"
  if (cell.mode === 2) return "run"
  if (cell.mode === 1) return cell.plan === "approved" ? "run" : "APPROVAL_REQUIRED"
  if (cell.own === "approved") return "run, consuming the approval"
  if (cell.own === "pending") return "return the pending approval's id"
  return "stage a new approval"
}

/** The id of the live record of `key` with `status` (newest first). */
const liveOf = (state: ModelState, key: string, status: ModelStatus, now: number): ModelRecord | undefined =>
  newestFirstModel(state.records).find(
    (record) => !record.plan && record.key === key && statusAt(record, now) === status
  )

const newestPlanWith = (state: ModelState, status: ModelStatus, now: number): ModelRecord | undefined =>
  newestFirstModel(state.records).find((record) => record.plan && statusAt(record, now) === status)

/** Result of a model step that may fail because the cap cannot be kept. */
export type Capped = { readonly _tag: "ok"; readonly records: ReadonlyArray<ModelRecord> } | { readonly _tag: "full" }

/**
 * The 300-record cap: over it, records are dropped oldest first — first those that can never change again
 * (consumed, completed, superseded, expired), then approved operation approvals (the user can approve the
 * operation again). A pending record, a live denial or an approved plan is never dropped: if the cap needs
 * one of those gone, nothing new is stored (STORE_FULL).
 */
export const capModel = (records: ReadonlyArray<ModelRecord>, now: number): Capped => {
  let excess = records.length - MODEL_MAX_RECORDS
  if (excess <= 0) return { _tag: "ok", records }
  const oldestFirst = newestFirstModel(records).reverse()
  const dropped = new Set<string>()
  const terminal = (record: ModelRecord) => {
    const status = statusAt(record, now)
    return status === "consumed" || status === "completed" || status === "superseded" || status === "expired"
  }
  for (const record of oldestFirst) {
    if (excess === 0) break
    if (terminal(record)) {
      dropped.add(record.id)
      excess--
    }
  }
  for (const record of oldestFirst) {
    if (excess === 0) break
    if (!dropped.has(record.id) && !record.plan && statusAt(record, now) === "approved") {
      dropped.add(record.id)
      excess--
    }
  }
  if (excess > 0) return { _tag: "full" }
  return { _tag: "ok", records: records.filter((record) => !dropped.has(record.id)) }
}

/** The result of a gated call: the outcome, the next state, and the cell the call fell in (absent for a no-op). */
export interface GateStep {
  readonly outcome: ModelOutcome
  readonly state: ModelState
  readonly cell?: GateCell
  /** Set when a new approval could not be stored: the cap holds only records it may not drop. */
  readonly storeFull?: boolean
}

/**
 * One gated call. `newId` names a freshly staged approval. A "ran" outcome that consumes an approval is
 * only provisional: call `settleRun` with whether the mutation succeeded.
 */
export const gateCall = (
  state: ModelState,
  settings: ModelSettings,
  call: ModelCall,
  now: number,
  newId: string
): GateStep => {
  // The no-op exceptions: nothing to gate, whatever the mode or the ceiling.
  if (call.noop === true) return { outcome: { _tag: "ran", noop: true }, state }
  const cell: GateCell = {
    mode: settings.mode,
    plan: planStateAt(state, now),
    own: ownStateAt(state, call.key, now),
    destructive: destructiveClass(call, settings)
  }
  const verdict = cellOutcome(cell)
  switch (verdict) {
    case "PROTECTED_PATH":
    case "APPROVAL_REQUIRED":
      return { outcome: { _tag: "refused", code: verdict }, state, cell }
    case "APPROVAL_DENIED":
      return {
        outcome: { _tag: "refused", code: "APPROVAL_DENIED", approvalId: liveOf(state, call.key, "denied", now)!.id },
        state,
        cell
      }
    case "run":
      return { outcome: { _tag: "ran" }, state, cell }
    case "run, consuming the approval":
      return { outcome: { _tag: "ran", consumed: liveOf(state, call.key, "approved", now)!.id }, state, cell }
    case "return the pending approval's id":
      return { outcome: { _tag: "staged", id: liveOf(state, call.key, "pending", now)!.id, fresh: false }, state, cell }
    case "stage a new approval": {
      const record: ModelRecord = {
        id: newId,
        plan: false,
        key: call.key,
        status: "pending",
        createdAt: now,
        seq: state.nextSeq
      }
      const capped = capModel([record, ...state.records], now)
      if (capped._tag === "full")
        return { outcome: { _tag: "refused", code: "STORE_FULL" }, state, cell, storeFull: true }
      return {
        outcome: { _tag: "staged", id: newId, fresh: true },
        state: { records: capped.records, nextSeq: state.nextSeq + 1 },
        cell
      }
    }
  }
}

/** "it is consumed once the mutation succeeds": a failed run leaves the approval approved. */
export const settleRun = (state: ModelState, outcome: ModelOutcome, succeeded: boolean): ModelState => {
  if (outcome._tag !== "ran" || outcome.consumed === undefined || !succeeded) return state
  const id = outcome.consumed
  return {
    ...state,
    records: state.records.map((record) => (record.id === id ? { ...record, status: "consumed" as const } : record))
  }
}

/** A user's /accept or /deny, with or without an id. */
export interface ModelCommand {
  readonly verb: "accept" | "deny"
  readonly id?: string
}

export type CommandOutcome =
  | { readonly _tag: "decided"; readonly id: string; readonly status: "approved" | "denied" }
  | { readonly _tag: "refused"; readonly code: "NOT_FOUND" | "TRANSACTION_STATE" }

/**
 * "/accept [id]" and "/deny [id]": without an id the most recently staged pending record is decided, and
 * only that one — plans included; nothing pending is NOT_FOUND; an unknown id is NOT_FOUND; a record that
 * is not pending (decided, expired, terminal) is TRANSACTION_STATE.
 */
export const decideModel = (
  state: ModelState,
  command: ModelCommand,
  now: number
): { readonly outcome: CommandOutcome; readonly state: ModelState } => {
  const target =
    command.id === undefined
      ? newestFirstModel(state.records).find((record) => statusAt(record, now) === "pending")
      : state.records.find((record) => record.id === command.id)
  if (target === undefined) return { outcome: { _tag: "refused", code: "NOT_FOUND" }, state }
  if (statusAt(target, now) !== "pending") return { outcome: { _tag: "refused", code: "TRANSACTION_STATE" }, state }
  const status = command.verb === "accept" ? ("approved" as const) : ("denied" as const)
  return {
    outcome: { _tag: "decided", id: target.id, status },
    state: {
      ...state,
      records: state.records.map((record) => (record.id === target.id ? { ...record, status } : record))
    }
  }
}

/** workspace_plan propose: "Proposing a new plan supersedes any pending or approved one." Not in Auto (not registered). */
export const proposeModel = (
  state: ModelState,
  now: number,
  id: string
): { readonly state: ModelState; readonly superseded: ReadonlyArray<string>; readonly storeFull?: boolean } => {
  const superseded = state.records
    .filter((record) => record.plan && (statusAt(record, now) === "pending" || statusAt(record, now) === "approved"))
    .map((record) => record.id)
  const next = state.records.map((record) =>
    superseded.includes(record.id) ? { ...record, status: "superseded" as const } : record
  )
  const plan: ModelRecord = { id, plan: true, status: "pending", createdAt: now, seq: state.nextSeq }
  const capped = capModel([plan, ...next], now)
  if (capped._tag === "full") return { state, superseded: [], storeFull: true }
  return { state: { records: capped.records, nextSeq: state.nextSeq + 1 }, superseded }
}

export type CompleteOutcome =
  | { readonly _tag: "completed"; readonly id: string }
  | { readonly _tag: "refused"; readonly code: "NOT_FOUND" | "TRANSACTION_STATE" }

/**
 * workspace_plan complete: plan_id defaults to the approved plan (else the pending one, which fails
 * TRANSACTION_STATE: the user has not accepted it); a plan that is not approved is TRANSACTION_STATE; none
 * is NOT_FOUND. Completing ends the approved plan: in Plan mode mutating tools are locked again.
 */
export const completeModel = (
  state: ModelState,
  id: string | undefined,
  now: number
): { readonly outcome: CompleteOutcome; readonly state: ModelState } => {
  const target =
    id === undefined
      ? (newestPlanWith(state, "approved", now) ?? newestPlanWith(state, "pending", now))
      : state.records.find((record) => record.plan && record.id === id)
  if (target === undefined) return { outcome: { _tag: "refused", code: "NOT_FOUND" }, state }
  if (statusAt(target, now) !== "approved") return { outcome: { _tag: "refused", code: "TRANSACTION_STATE" }, state }
  return {
    outcome: { _tag: "completed", id: target.id },
    state: {
      ...state,
      records: state.records.map((record) =>
        record.id === target.id ? { ...record, status: "completed" as const } : record
      )
    }
  }
}

/** What a sub-agent run may do. */
export interface AgentReach {
  readonly commands: boolean
  readonly web: boolean
}

/**
 * The sub-agent lowering rules (workspace_agent run/start): in Auto and under an approved plan the run
 * commits its own edits; in Manual it starts with commit_edits=false, and is staged only when it may
 * execute commands or reach the web — a run with neither has nothing to gate (a no-op exception).
 * In Plan mode without an approved plan it is refused like every gated call.
 */
export const agentLowering = (
  mode: Mode,
  plan: PlanState,
  reach: AgentReach
): { readonly gated: boolean; readonly commitEdits: boolean; readonly refused?: "APPROVAL_REQUIRED" } => {
  if (mode === 2) return { gated: false, commitEdits: true }
  if (mode === 1)
    return plan === "approved"
      ? { gated: false, commitEdits: true }
      : { gated: true, commitEdits: true, refused: "APPROVAL_REQUIRED" }
  return { gated: reach.commands || reach.web, commitEdits: false }
}

/** Approval and plan records: the pure rules of `.agentic/approvals/state.json`. */
import * as Schema from "effect/Schema"
import { Prompt } from "./prompt.ts"

/** What a record stands for; plans share the store with operation approvals. */
export type RecordKind = "transaction" | "command" | "vcs" | "browser" | "web" | "agent" | "plan"

/** Every status the reference names. consumed, completed and superseded are terminal; expired is too. */
export type RecordStatus = "pending" | "approved" | "denied" | "consumed" | "completed" | "superseded" | "expired"

/** The exact call a model makes after the user's /accept. */
export interface ResumeCall {
  readonly tool: string
  readonly arguments: Record<string, unknown>
}

/** One approval or plan record. */
export interface ApprovalRecord {
  readonly id: string
  readonly kind: RecordKind
  readonly status: RecordStatus
  readonly title: string
  /** ISO time of staging; expiry counts from here. */
  readonly createdAt: string
  readonly decidedAt?: string
  /** When an approved operation was spent by the call that ran it. */
  readonly consumedAt?: string
  readonly note?: string
  readonly reason?: string
  /** The SHA-256 of the normalised operation (absent for plans). */
  readonly hash?: string
  readonly tool?: string
  readonly operation?: string
  readonly destructive?: boolean
  readonly resume?: ResumeCall
  /** What the user was asked to approve (the diff clipped); absent on plans and older records. */
  readonly prompt?: Prompt
  // plans
  readonly revision?: number
  readonly supersedes?: string
  readonly supersededBy?: string
  readonly planPath?: string
  readonly completedAt?: string
  readonly completionSummary?: string
  /**
   * HMAC-SHA-256 (hex) of the record under the workspace key (core/gate/key.ts), written by whichever
   * channel staged or decided it. A record without a verifying MAC is untrusted: never listed, decided,
   * honoured or counted toward the cap.
   */
  readonly mac?: string
}

/** The store file: records newest first. */
export interface ApprovalState {
  readonly version: 1
  readonly records: ReadonlyArray<ApprovalRecord>
}

const RecordKindSchema = Schema.Literal("transaction", "command", "vcs", "browser", "web", "agent", "plan")
const Str = Schema.String
const opt = Schema.optional

/** The Schema of one record, decoded on every read of the store. */
export const ApprovalRecordSchema: Schema.Schema<ApprovalRecord> = Schema.Struct({
  id: Str,
  kind: RecordKindSchema,
  status: Schema.Literal("pending", "approved", "denied", "consumed", "completed", "superseded", "expired"),
  title: Str,
  createdAt: Str,
  decidedAt: opt(Str),
  consumedAt: opt(Str),
  note: opt(Str),
  reason: opt(Str),
  hash: opt(Str),
  tool: opt(Str),
  operation: opt(Str),
  destructive: opt(Schema.Boolean),
  resume: opt(Schema.Struct({ tool: Str, arguments: Schema.Record({ key: Str, value: Schema.Unknown }) })),
  prompt: opt(Prompt),
  revision: opt(Schema.Number),
  supersedes: opt(Str),
  supersededBy: opt(Str),
  planPath: opt(Str),
  completedAt: opt(Str),
  completionSummary: opt(Str),
  mac: opt(Str)
})

/**
 * The store file as read: its records are decoded one by one (and their MACs checked) by the gate, so
 * one planted or malformed record is untrusted rather than making the whole store unreadable.
 */
export const ApprovalStoreSchema = Schema.Struct({ version: Schema.Literal(1), records: Schema.Array(Schema.Unknown) })

/** The Schema of .agentic/approvals/state.json. */
export const ApprovalStateSchema: Schema.Schema<ApprovalState> = Schema.Struct({
  version: Schema.Literal(1),
  records: Schema.Array(ApprovalRecordSchema)
})

/** The store's path under .agentic/. */
export const APPROVALS_FILE = "approvals/state.json"
/** Records expire this long after creation while pending, approved or denied. */
export const EXPIRY_MS = 24 * 60 * 60 * 1000
/** At most this many records are kept. */
export const MAX_RECORDS = 300

export const emptyState: ApprovalState = { version: 1, records: [] }

const LIVE: ReadonlyArray<RecordStatus> = ["pending", "approved", "denied"]

/** True for a record whose status can never change again. */
export const isTerminal = (record: ApprovalRecord): boolean => !LIVE.includes(record.status)

/** How far in the future a creation time may lie (clock skew between processes) before the record is void. */
export const MAX_CLOCK_SKEW_MS = 5 * 60 * 1000

/**
 * Marks every live record older than 24 hours as expired. A live record whose creation time is unreadable
 * or lies in the future (a store shipped in a repository with a far-future approved plan) expires too:
 * otherwise it would never expire and would unlock the gate for good.
 */
export const expireRecords = (records: ReadonlyArray<ApprovalRecord>, now: number): ReadonlyArray<ApprovalRecord> =>
  records.map((record) => {
    if (!LIVE.includes(record.status)) return record
    const created = Date.parse(record.createdAt)
    const stale = Number.isNaN(created) || created > now + MAX_CLOCK_SKEW_MS || created + EXPIRY_MS <= now
    return stale ? { ...record, status: "expired" as const } : record
  })

/**
 * Records newest first, by creation time. Ties (records staged in the same millisecond) keep their
 * stored order, which is newest first because every update prepends: ids are random, so ordering ties
 * by id would let a bare /accept decide an older record.
 */
export const newestFirst = (records: ReadonlyArray<ApprovalRecord>): ReadonlyArray<ApprovalRecord> =>
  [...records].sort((a, b) => Date.parse(b.createdAt) - Date.parse(a.createdAt))

/**
 * Keeps at most MAX_RECORDS. Terminal and expired records go first (oldest first), then approved
 * operation approvals (re-approvable); a pending record, a live denial or an approved plan is never
 * dropped. Returns undefined when the cap cannot be kept without dropping one of those.
 */
export const capRecords = (records: ReadonlyArray<ApprovalRecord>): ReadonlyArray<ApprovalRecord> | undefined => {
  if (records.length <= MAX_RECORDS) return records
  const ordered = newestFirst(records)
  const droppable = (tier: number) => (record: ApprovalRecord) =>
    tier === 0 ? isTerminal(record) : record.status === "approved" && record.kind !== "plan"
  const drop = new Set<string>()
  let excess = ordered.length - MAX_RECORDS
  for (const tier of [0, 1]) {
    for (let index = ordered.length - 1; index >= 0 && excess > 0; index--) {
      const record = ordered[index]!
      if (!drop.has(record.id) && droppable(tier)(record)) {
        drop.add(record.id)
        excess--
      }
    }
  }
  return excess > 0 ? undefined : ordered.filter((record) => !drop.has(record.id))
}

/** The approved plan that unlocks Plan mode, if any (records must already be expired). */
export const approvedPlan = (records: ReadonlyArray<ApprovalRecord>): ApprovalRecord | undefined =>
  newestFirst(records).find((record) => record.kind === "plan" && record.status === "approved")

/** The pending plan, if any. */
export const pendingPlan = (records: ReadonlyArray<ApprovalRecord>): ApprovalRecord | undefined =>
  newestFirst(records).find((record) => record.kind === "plan" && record.status === "pending")

/** Every pending record, newest first: the order a bare /accept follows. */
export const pendingRecords = (records: ReadonlyArray<ApprovalRecord>): ReadonlyArray<ApprovalRecord> =>
  newestFirst(records).filter((record) => record.status === "pending")

/** Why an operation is destructive: the operation, its path, and the non-destructive alternative if any. */
export interface DestructiveReason {
  readonly operation: string
  readonly path?: string
  readonly alternative?: string
}

/** The Schema of a destructive reason, as transaction records keep them. */
export const DestructiveReasonSchema: Schema.Schema<DestructiveReason> = Schema.Struct({
  operation: Schema.String,
  path: Schema.optional(Schema.String),
  alternative: Schema.optional(Schema.String)
})

/** What the gate is asked about one mutating call. */
export interface GateQuery {
  readonly mode: 0 | 1 | 2
  readonly allowDestructiveEdits: boolean
  readonly destructive: boolean
  /** "always": the action is staged for the user in every mode. */
  readonly confirm?: "always"
  /** The reference's Manual exception: a sub-agent run with neither commands nor web access has nothing to gate. */
  readonly nothingToGateInManual?: boolean
  readonly hash: string
  /** Records after expiry, any order. */
  readonly records: ReadonlyArray<ApprovalRecord>
}

/** The gate's decision: run now (consuming an approval), stage for the user, or refuse. */
export type Decision =
  | { readonly _tag: "Run"; readonly consume?: string }
  | { readonly _tag: "Stage"; readonly existing?: string }
  | {
      readonly _tag: "Refuse"
      readonly code: "PROTECTED_PATH" | "APPROVAL_DENIED" | "APPROVAL_REQUIRED"
      readonly approvalId?: string
      readonly pendingPlanId?: string
    }

/**
 * The pure decision for one gated call:
 * 1. destructive without allowDestructiveEdits -> PROTECTED_PATH, in every mode, before any approval;
 * 2. a live denial of the identical operation -> APPROVAL_DENIED;
 * 3. Auto -> run; Plan -> run under an approved plan, else APPROVAL_REQUIRED (an action declared
 *    `confirm: "always"` skips this rule and is decided as in Manual, whatever the mode);
 * 4. Manual -> run when the call has nothing to gate (a sub-agent run without commands or web); else run
 *    consuming a matching approval, else stage (re-using a matching pending record).
 * This is the only place the destructive ceiling is decided.
 */
export const decide = (query: GateQuery): Decision => {
  if (query.destructive && !query.allowDestructiveEdits) return { _tag: "Refuse", code: "PROTECTED_PATH" }
  const same = newestFirst(query.records).filter((record) => record.kind !== "plan" && record.hash === query.hash)
  const denial = same.find((record) => record.status === "denied")
  if (denial !== undefined) return { _tag: "Refuse", code: "APPROVAL_DENIED", approvalId: denial.id }
  const mode = query.confirm === "always" ? 0 : query.mode
  if (mode === 2) return { _tag: "Run" }
  if (mode === 1) {
    if (approvedPlan(query.records) !== undefined) return { _tag: "Run" }
    const pending = pendingPlan(query.records)
    return pending === undefined
      ? { _tag: "Refuse", code: "APPROVAL_REQUIRED" }
      : { _tag: "Refuse", code: "APPROVAL_REQUIRED", pendingPlanId: pending.id }
  }
  if (query.nothingToGateInManual === true && query.confirm !== "always") return { _tag: "Run" }
  const approved = same.find((record) => record.status === "approved")
  if (approved !== undefined) return { _tag: "Run", consume: approved.id }
  const pending = same.find((record) => record.status === "pending")
  return pending === undefined ? { _tag: "Stage" } : { _tag: "Stage", existing: pending.id }
}

/** Clips a string to at most `max` UTF-8 bytes without splitting a character, marking the cut with "…". */
export const clipBytes = (text: string, max: number): string => {
  const encoder = new TextEncoder()
  if (encoder.encode(text).length <= max) return text
  const budget = max - encoder.encode("…").length
  let out = ""
  let used = 0
  for (const char of text) {
    const size = encoder.encode(char).length
    if (used + size > budget) break
    out += char
    used += size
  }
  return `${out}…`
}

/** "5m", "2h 5m", "3d 1h": how long ago an ISO time was. */
export const age = (iso: string, now: number): string => {
  const minutes = Math.max(0, Math.floor((now - Date.parse(iso)) / 60_000))
  if (minutes < 1) return "just now"
  if (minutes < 60) return `${minutes}m ago`
  const hours = Math.floor(minutes / 60)
  if (hours < 24) return `${hours}h ${minutes % 60}m ago`
  return `${Math.floor(hours / 24)}d ${hours % 24}h ago`
}

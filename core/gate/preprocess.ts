/**
 * The prompt preprocessor: `/accept` and `/deny` at the start of a user message decide a pending
 * record and replace the message with an <agentic-approval> block; outside Auto mode every other
 * message gets an <agentic-mode> block appended. The parsing and the texts are pure functions.
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import { toolError, type ToolError } from "../protocol/errors.ts"
import { CurrentSettings } from "../services/CurrentSettings.ts"
import { modeLabel } from "../settings/settings.ts"
import type { StateReads, StateStore } from "../store/StateStore.ts"
import type { WorkspaceKey } from "./key.ts"
import { loadRecords, updateRecords } from "./gate.ts"
import { age, type ApprovalRecord, approvedPlan, clipBytes, pendingPlan, pendingRecords } from "./records.ts"
import { defined } from "../text/defined.ts"

/** A parsed /accept or /deny. `text` is the note (accept) or the reason (deny). */
export interface DecisionCommand {
  readonly verb: "accept" | "deny"
  readonly id?: string
  readonly text?: string
}

/** Commands the context compressor owns; the preprocessor passes them through untouched. */
export const PASS_THROUGH = ["/compress", "/compact", "/usage"] as const

const COMMAND = /^\s*\/(accept|deny)(?=\s|$)\s*([\s\S]*)$/
const ID = /^(approval|plan)_[A-Za-z0-9]+$/
/** A first word the user meant as an id, even mistyped: it is never read as a note (which would decide the newest record instead). */
const ID_LIKE = /^(approval|plan)_/i

/** Parses a user message; undefined when it does not start with /accept or /deny. */
export const parseCommand = (message: string): DecisionCommand | undefined => {
  const match = COMMAND.exec(message)
  if (match === null) return undefined
  const verb = match[1] as "accept" | "deny"
  const rest = match[2]!.trim()
  const first = rest.split(/\s+/, 1)[0] ?? ""
  const hasId = ID_LIKE.test(first)
  // "approval_3f9c…." copied with trailing punctuation is that id; anything else id-shaped stays as typed (NOT_FOUND).
  const trimmed = first.replace(/[.,;:!?)\]}'"`]+$/, "")
  const id = ID.test(trimmed) ? trimmed : first
  const text = (hasId ? rest.slice(first.length) : rest).trim()
  return { verb, ...(hasId ? { id } : {}), ...(text.length > 0 ? { text } : {}) }
}

/** Writes a command back as a user would type it (parseCommand(formatCommand(c)) equals c). */
export const formatCommand = (command: DecisionCommand): string =>
  [`/${command.verb}`, command.id, command.text].filter((part) => part !== undefined).join(" ")

/** True for a message the preprocessor must leave exactly as it is. */
export const isPassThrough = (message: string): boolean => {
  const head = message.trimStart().split(/\s/, 1)[0] ?? ""
  return (PASS_THROUGH as ReadonlyArray<string>).includes(head)
}

/** The outcome of deciding a record: the record after the decision. */
export interface DecisionOutcome {
  readonly verb: "accept" | "deny"
  readonly record: ApprovalRecord
}

/**
 * Applies a command to the records (newest first, expired already). Without an id the newest pending
 * record is decided, and only that one; plans included.
 */
export const applyCommand = (
  records: ReadonlyArray<ApprovalRecord>,
  command: DecisionCommand,
  now: number
): { readonly records: ReadonlyArray<ApprovalRecord>; readonly outcome: DecisionOutcome } | ToolError => {
  const target =
    command.id === undefined ? pendingRecords(records)[0] : records.find((record) => record.id === command.id)
  if (target === undefined) {
    return command.id === undefined
      ? toolError("NOT_FOUND", `Nothing is pending, so /${command.verb} has nothing to decide.`)
      : toolError("NOT_FOUND", `No approval or plan ${command.id} exists. Check the id in the pending list.`, {
          id: command.id
        })
  }
  if (target.status !== "pending") {
    return toolError(
      "TRANSACTION_STATE",
      `${target.id} is ${target.status}, not pending: it cannot be decided again.`,
      {
        id: target.id,
        status: target.status
      }
    )
  }
  const decidedAt = new Date(now).toISOString()
  const decided: ApprovalRecord =
    command.verb === "accept"
      ? { ...target, status: "approved", decidedAt, ...defined({ note: command.text }) }
      : { ...target, status: "denied", decidedAt, ...defined({ reason: command.text }) }
  return {
    records: records.map((record) => (record.id === target.id ? decided : record)),
    outcome: { verb: command.verb, record: decided }
  }
}

/**
 * Text placed inside a block that the model (or anyone but this code) supplied: "<" and ">" become
 * "&lt;" and "&gt;", so no such string can close the block or open a forged one.
 */
export const blockEscape = (text: string): string => text.replace(/</g, "&lt;").replace(/>/g, "&gt;")

/**
 * A model-supplied one-line field (a title, an id as typed) inside a block: every run of whitespace and
 * control characters (newlines, tabs, ANSI escapes, line and paragraph separators) becomes one space,
 * then it is escaped, then clipped to `maxBytes`.
 */
export const blockLine = (text: string, maxBytes: number): string =>
  clipBytes(blockEscape(text.replace(/[\s\p{Cc}\p{Cf}\u2028\u2029]+/gu, " ").trim()), maxBytes)

/**
 * JSON inside a block (a resume call's arguments): "<", ">" and "&" as \u escapes, which decode to the
 * same value, so the model re-issues exactly the approved call and the block still holds no tag.
 */
export const blockJson = (value: unknown): string =>
  JSON.stringify(value).replace(/</g, "\\u003c").replace(/>/g, "\\u003e").replace(/&/g, "\\u0026")

/** Titles in the approval block are clipped to this many bytes. */
export const APPROVAL_TITLE_BYTES = 200

/** The <agentic-approval> block that replaces an /accept or /deny message. */
export const approvalBlock = (outcome: DecisionOutcome, mode: 0 | 1 | 2): string => {
  const record = {
    ...outcome.record,
    id: blockLine(outcome.record.id, 100),
    kind: blockLine(outcome.record.kind, 20) as ApprovalRecord["kind"],
    title: blockLine(outcome.record.title, APPROVAL_TITLE_BYTES),
    ...(outcome.record.note === undefined ? {} : { note: blockEscape(outcome.record.note) }),
    ...(outcome.record.reason === undefined ? {} : { reason: blockEscape(outcome.record.reason) })
  }
  const lines: Array<string> = []
  if (record.kind === "plan") {
    if (outcome.verb === "accept") {
      lines.push(`The user accepted plan ${record.id}: ${record.title}.`)
      if (record.note !== undefined) lines.push(`User note: ${record.note}`)
      lines.push(
        mode === 0
          ? "Permission mode is Manual (0): the plan is a shared checklist; each mutating call still needs its own /accept."
          : `Carry out the plan now. Mutating calls run unasked until you call workspace_plan {"action":"complete","plan_id":"${record.id}"}.`
      )
    } else {
      lines.push(`The user denied plan ${record.id}: ${record.title}.`)
      if (record.reason !== undefined) lines.push(`Reason: ${record.reason}`)
      lines.push(
        "Do not carry out this plan and never re-propose it unchanged: change it to meet the reason, or ask the user."
      )
    }
  } else if (outcome.verb === "accept") {
    lines.push(`The user accepted ${record.id} (${record.kind}): ${record.title}.`)
    if (record.note !== undefined) lines.push(`User note: ${record.note}`)
    if (record.resume !== undefined) {
      lines.push(
        `Resume now with exactly this call: ${blockLine(record.resume.tool, 200)} ${blockJson(record.resume.arguments)}`
      )
    }
  } else {
    lines.push(`The user denied ${record.id} (${record.kind}): ${record.title}.`)
    if (record.reason !== undefined) lines.push(`Reason: ${record.reason}`)
    lines.push("Never re-issue the denied operation unchanged: change it to meet the reason, or ask the user.")
  }
  return `<agentic-approval>\n${lines.join("\n")}\n</agentic-approval>`
}

/** The block that replaces an /accept or /deny the store refused (nothing pending, unknown id, decided already). */
export const refusedBlock = (command: DecisionCommand, error: ToolError): string =>
  `<agentic-approval>\nThe user typed /${command.verb}${command.id === undefined ? "" : ` ${blockLine(command.id, 100)}`}, but nothing was decided: ${error.code}: ${blockEscape(error.message)}\nTell the user; do not retry any operation on the strength of this message.\n</agentic-approval>`

/** How many pending records the Manual-mode block lists. */
export const MODE_BLOCK_LIMIT = 5
/** Titles in the mode block are clipped to this many bytes. */
export const MODE_TITLE_BYTES = 60

/** The <agentic-mode> block appended outside Auto mode; undefined in Auto mode. */
export const modeBlock = (mode: 0 | 1 | 2, records: ReadonlyArray<ApprovalRecord>, now: number): string | undefined => {
  if (mode === 2) return undefined
  const lines = [`Permission mode: ${modeLabel(mode)}.`]
  if (mode === 1) {
    const approved = approvedPlan(records)
    const pending = pendingPlan(records)
    if (pending !== undefined) {
      lines.push(
        `Pending plan ${blockLine(pending.id, 100)}: "${blockLine(pending.title, MODE_TITLE_BYTES)}" (proposed ${age(pending.createdAt, now)}), waiting for the user's /accept ${blockLine(pending.id, 100)} or /deny ${blockLine(pending.id, 100)}. Mutating tools are locked until then.`
      )
    } else if (approved !== undefined) {
      lines.push(
        `Approved plan ${blockLine(approved.id, 100)}: "${blockLine(approved.title, MODE_TITLE_BYTES)}" (proposed ${age(approved.createdAt, now)}, approved ${age(approved.decidedAt ?? approved.createdAt, now)}). Mutating calls run unasked until workspace_plan {"action":"complete"}.`
      )
    } else {
      lines.push(
        "No plan is pending or approved: mutating calls fail with APPROVAL_REQUIRED until a plan proposed with workspace_plan is accepted."
      )
    }
  } else {
    const pending = pendingRecords(records)
    if (pending.length === 0) {
      lines.push("No approvals are pending. Every mutating call is staged for the user's /accept.")
    } else {
      lines.push(`Pending approvals, newest first (a bare /accept decides #1 only; name the id otherwise):`)
      pending.slice(0, MODE_BLOCK_LIMIT).forEach((record, index) => {
        lines.push(
          `${index + 1}. ${blockLine(record.id, 100)} [${blockLine(record.kind, 20)}] ${blockLine(record.title, MODE_TITLE_BYTES)} (${age(record.createdAt, now)})`
        )
      })
      if (pending.length > MODE_BLOCK_LIMIT)
        lines.push(`… and ${pending.length - MODE_BLOCK_LIMIT} older pending record(s).`)
      if (pending.length > 1) lines.push("Several are waiting: tell the user the id to name, /accept <id>.")
    }
  }
  return `<agentic-mode>\n${lines.join("\n")}\n</agentic-mode>`
}

/** What the preprocessor did with one message. */
export interface Preprocessed {
  /** The text the model sees. */
  readonly text: string
  /** Set when a record was decided. */
  readonly decided?: DecisionOutcome
  /** Set when an /accept or /deny was refused. */
  readonly refused?: ToolError
}

/** Decides a command against the store (locked); the shared step of the preprocessor and the CLI. */
export const decideCommand = (
  command: DecisionCommand
): Effect.Effect<DecisionOutcome, ToolError, StateStore | WorkspaceKey> =>
  updateRecords((records, now) => {
    const applied = applyCommand(records, command, now)
    return "outcome" in applied ? Effect.succeed([applied.outcome, applied.records] as const) : Effect.fail(applied)
  })

/** The preprocessor: decides /accept and /deny, appends the mode block, leaves compressor commands alone. */
export const preprocess = (
  message: string
): Effect.Effect<Preprocessed, ToolError, StateStore | StateReads | CurrentSettings | WorkspaceKey> =>
  Effect.gen(function* () {
    if (isPassThrough(message)) return { text: message }
    const settings = yield* CurrentSettings
    const command = parseCommand(message)
    let text = message
    let decided: DecisionOutcome | undefined
    let refused: ToolError | undefined
    if (command !== undefined) {
      const result = yield* Effect.either(decideCommand(command))
      if (result._tag === "Right") {
        decided = result.right
        text = approvalBlock(decided, settings.permissionMode)
      } else {
        refused = result.left
        text = refusedBlock(command, refused)
      }
    }
    const records = yield* loadRecords
    const block = modeBlock(settings.permissionMode, records, yield* Clock.currentTimeMillis)
    return {
      text: block === undefined ? text : `${text}\n\n${block}`,
      ...defined({ decided, refused })
    }
  })

/**
 * What the review page shows and how it decides: the pending records (each rendered from its typed
 * prompt, with its full diff read from the transaction's changes.diff), the plans, the `changes`
 * listing as a timeline, and the one decision the page may make: exactly the record it showed.
 *
 * A record is identified to the page by its id, its operation hash and its `version` (SHA-256 of every
 * field of the record but its MAC): a decision is refused when any of the three no longer matches the
 * stored record, so a record that changed, expired, was superseded or was decided elsewhere after the
 * page loaded is never decided by a click on its old card.
 */
import * as Effect from "effect/Effect"
import { loadRecords, recordPayload, updateRecords } from "../../core/gate/gate.ts"
import { sha256Text } from "../../core/gate/hash.ts"
import { applyCommand, type DecisionOutcome } from "../../core/gate/preprocess.ts"
import { type ApprovalRecord, EXPIRY_MS } from "../../core/gate/records.ts"
import { toolError, type ToolError } from "../../core/protocol/errors.ts"
import type { WorkspaceRuntime } from "../../core/runtime.ts"
import { StateStore } from "../../core/store/StateStore.ts"

/** A full diff larger than this is cut (the page then says so and names the file that has all of it). */
export const MAX_DIFF_CHARS = 4 * 1024 * 1024
/** A job tail sent to the page holds at most this many bytes of each log. */
export const TAIL_BYTES = 64 * 1024

/** The version the page echoes back with a decision: SHA-256 of the record without its MAC. */
export const recordVersion = (record: ApprovalRecord): Effect.Effect<string> => sha256Text(recordPayload(record))

/** One file a transaction touches, as transaction.json records it. */
export interface TransactionFile {
  readonly path: string
  readonly change: string
  readonly destructive?: boolean
}

/** One card of the page. */
export interface ReviewCard {
  readonly record: ApprovalRecord
  readonly version: string
  readonly expiresAt: string
  /** transactions: the full unified diff (cut at MAX_DIFF_CHARS) and the files with their change. */
  readonly diff?: string
  readonly diffCut?: boolean
  readonly diffPath?: string
  readonly files?: ReadonlyArray<TransactionFile>
  /** Why the operation is destructive, as the transaction's review names it. */
  readonly destructiveReasons?: ReadonlyArray<string>
  /** plans: the markdown of plan.md. */
  readonly markdown?: string
}

/** Everything the page draws. */
export interface ReviewState {
  readonly root: string
  readonly mode: 0 | 1 | 2
  readonly now: string
  readonly pending: ReadonlyArray<ReviewCard>
  readonly plans: ReadonlyArray<ReviewCard>
  readonly changes: Record<string, unknown>
  readonly boards: ReadonlyArray<TaskBoard>
  /** What a command card is matched against: the allowlist, the sandbox setting, command network. */
  readonly policy: { readonly executableAllowlist: ReadonlyArray<string>; readonly commandSandbox: string; readonly allowCommandNetwork: boolean; readonly allowDestructiveEdits: boolean }
}

/** A task board as drawn: tasks and the tasks each depends on. */
export interface TaskBoard {
  readonly id: string
  readonly title: string
  readonly tasks: ReadonlyArray<{ readonly id: string; readonly title: string; readonly status: string; readonly dependsOn: ReadonlyArray<string> }>
}

const parse = (text: string | undefined): unknown => {
  if (text === undefined) return undefined
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

const SAFE_ID = /^[A-Za-z]+_[A-Za-z0-9]+$/

const cardOf = (record: ApprovalRecord) =>
  Effect.gen(function* () {
    const store = yield* StateStore
    const read = (rel: string) => Effect.orElseSucceed(store.readText(rel), () => undefined)
    const version = yield* recordVersion(record)
    const expiresAt = new Date(Date.parse(record.createdAt) + EXPIRY_MS).toISOString()
    if (record.kind === "plan") {
      const markdown = SAFE_ID.test(record.id) ? yield* read(`plans/${record.id}/plan.md`) : undefined
      return { record, version, expiresAt, ...(markdown === undefined ? {} : { markdown }) } satisfies ReviewCard
    }
    const tx = record.resume?.arguments["transaction_id"]
    if (record.kind !== "transaction" || typeof tx !== "string" || !SAFE_ID.test(tx)) return { record, version, expiresAt } satisfies ReviewCard
    const transaction = parse(yield* read(`transactions/${tx}/transaction.json`)) as
      | { files?: ReadonlyArray<Record<string, unknown>>; destructive?: ReadonlyArray<Record<string, unknown>> }
      | undefined
    const files: Array<TransactionFile> = (Array.isArray(transaction?.files) ? transaction.files : [])
      .filter((file) => typeof file?.["path"] === "string")
      .map((file) => ({
        path: file["path"] as string,
        change: typeof file["change"] === "string" ? (file["change"] as string) : "modify",
        ...(file["destructive"] === true ? { destructive: true } : {})
      }))
    const whole = yield* read(`transactions/${tx}/changes.diff`)
    const diff = whole ?? (record.prompt?._tag === "transaction" ? record.prompt.diff : undefined)
    // What makes it destructive, named: the transaction's own reasons (operation, path, the alternative).
    const reasons = (Array.isArray(transaction?.destructive) ? transaction.destructive : [])
      .filter((reason) => typeof reason?.["operation"] === "string")
      .map((reason) => `${reason["operation"]}${typeof reason["path"] === "string" ? ` ${reason["path"]}` : ""}${typeof reason["alternative"] === "string" ? ` (non-destructive alternative: ${reason["alternative"]})` : ""}`)
      .slice(0, 50)
    return {
      record,
      version,
      expiresAt,
      ...(diff === undefined ? {} : { diff: diff.slice(0, MAX_DIFF_CHARS), diffCut: diff.length > MAX_DIFF_CHARS }),
      diffPath: store.path(`transactions/${tx}/changes.diff`),
      files,
      ...(reasons.length > 0 ? { destructiveReasons: reasons } : {})
    } satisfies ReviewCard
  })

const boardsOf = (changes: Record<string, unknown>) =>
  Effect.gen(function* () {
    const store = yield* StateStore
    const listed = Array.isArray(changes["taskBoards"]) ? (changes["taskBoards"] as ReadonlyArray<Record<string, unknown>>) : []
    const boards: Array<TaskBoard> = []
    for (const entry of listed.slice(0, 20)) {
      const id = entry["id"] ?? entry["boardId"]
      if (typeof id !== "string" || !SAFE_ID.test(id)) continue
      const state = parse(yield* Effect.orElseSucceed(store.readText(`tasks/${id}/state.json`), () => undefined)) as Record<string, unknown> | undefined
      const items = Array.isArray(state?.["items"]) ? (state["items"] as ReadonlyArray<Record<string, unknown>>) : []
      boards.push({
        id,
        title: typeof state?.["title"] === "string" ? (state["title"] as string) : typeof entry["title"] === "string" ? (entry["title"] as string) : id,
        tasks: items.slice(0, 200).map((item) => ({
          id: String(item["id"] ?? ""),
          title: String(item["text"] ?? ""),
          status: String(item["status"] ?? ""),
          dependsOn: Array.isArray(item["depends_on"]) ? (item["depends_on"] as ReadonlyArray<unknown>).map(String) : []
        }))
      })
    }
    return boards
  })

/** The page's state, read fresh (nothing is written). */
export const reviewState = async (runtime: WorkspaceRuntime): Promise<ReviewState> => {
  const listing = await runtime.call("workspace_inspect", { action: "changes" })
  const changes = listing.ok && listing.data !== null && typeof listing.data === "object" ? (listing.data as Record<string, unknown>) : {}
  return runtime.run(
    Effect.gen(function* () {
      const records = yield* loadRecords
      const pending = yield* Effect.forEach(
        records.filter((record) => record.kind !== "plan" && record.status === "pending"),
        cardOf
      )
      const plans = yield* Effect.forEach(
        records.filter((record) => record.kind === "plan" && (record.status === "pending" || record.status === "approved")),
        cardOf
      )
      return {
        root: runtime.info.root,
        mode: runtime.settings.permissionMode,
        now: new Date().toISOString(),
        pending,
        plans,
        changes,
        boards: yield* boardsOf(changes),
        policy: {
          executableAllowlist: runtime.settings.executableAllowlist,
          commandSandbox: runtime.settings.commandSandbox,
          allowCommandNetwork: runtime.settings.allowCommandNetwork,
          allowDestructiveEdits: runtime.settings.allowDestructiveEdits
        }
      } satisfies ReviewState
    })
  )
}

/** A decision from the page: exactly the record it showed. */
export interface PageDecision {
  readonly verb: "accept" | "deny"
  readonly id: string
  /** The record's operation hash as shown ("" for a plan, which has none). */
  readonly hash: string
  /** recordVersion of the record as shown. */
  readonly version: string
  readonly text?: string
}

/**
 * Decides the record the page showed, inside the approvals store's lock: refused (TRANSACTION_STATE)
 * unless the stored record is still pending with the same hash and version.
 */
export const decideShown = (decision: PageDecision): Effect.Effect<DecisionOutcome, ToolError, StateStore | import("../../core/gate/key.ts").WorkspaceKey> =>
  updateRecords((records, now) =>
    Effect.gen(function* () {
      const target = records.find((record) => record.id === decision.id)
      if (target === undefined) return yield* Effect.fail(toolError("NOT_FOUND", `No approval or plan ${decision.id} exists any more; the page has been refreshed.`, { id: decision.id }))
      if (target.status !== "pending") {
        return yield* Effect.fail(
          toolError("TRANSACTION_STATE", `${target.id} is ${target.status} now, not pending: it was decided elsewhere, superseded or expired after the page loaded. Nothing was decided; look at the refreshed page.`, {
            id: target.id,
            status: target.status
          })
        )
      }
      if ((target.hash ?? "") !== decision.hash || (yield* recordVersion(target)) !== decision.version) {
        return yield* Effect.fail(
          toolError("TRANSACTION_STATE", `${target.id} changed after the page loaded: nothing was decided. Review the refreshed card and decide again.`, { id: target.id, status: target.status })
        )
      }
      const applied = applyCommand(records, { verb: decision.verb, id: decision.id, ...(decision.text === undefined || decision.text === "" ? {} : { text: decision.text }) }, now)
      return "outcome" in applied ? ([applied.outcome, applied.records] as const) : yield* Effect.fail(applied)
    })
  )

/** The last TAIL_BYTES of a job's stdout and stderr, and its status, for the live tail. */
export const jobTail = (runtime: WorkspaceRuntime, id: string): Promise<{ readonly stdout: string; readonly stderr: string; readonly done: boolean } | undefined> =>
  runtime.run(
    Effect.gen(function* () {
      if (!/^job_[A-Za-z0-9]+$/.test(id)) return undefined
      const store = yield* StateStore
      const read = (rel: string) => Effect.orElseSucceed(store.readText(rel), () => undefined)
      const job = yield* read(`jobs/${id}/job.json`)
      if (job === undefined) return undefined
      const tail = (text: string | undefined) => (text === undefined ? "" : text.length > TAIL_BYTES ? text.slice(text.length - TAIL_BYTES) : text)
      return {
        stdout: tail(yield* read(`jobs/${id}/stdout.log`)),
        stderr: tail(yield* read(`jobs/${id}/stderr.log`)),
        done: (yield* read(`jobs/${id}/exit.json`)) !== undefined
      }
    })
  )

/**
 * Receipts: `.agentic/receipts/<request_id>.json`, one per original request, written under the store's
 * lock with atomic replace. The intent is written before any effect; the outcome after it. A receipt's
 * state only moves forward (needs_confirmation -> unknown -> succeeded | failed) and a settled one never
 * changes again: `advance` is the one place a state changes, and it refuses going back.
 */
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import { toolError, type ToolError } from "../../protocol/errors.ts"
import { OwnStore, StateReads } from "../../store/StateStore.ts"
import { defined } from "../../text/defined.ts"

export const ReceiptState = Schema.Literal("needs_confirmation", "unknown", "succeeded", "failed")
export type ReceiptState = typeof ReceiptState.Type

/** Phases, recorded separately (null: not reached or not known). `reloaded` stays false: no editor is reloaded. */
export const Phases = Schema.Struct({
  local_applied: Schema.NullOr(Schema.Boolean),
  published: Schema.NullOr(Schema.Boolean),
  reloaded: Schema.NullOr(Schema.Boolean)
})
export type Phases = typeof Phases.Type

export const Receipt = Schema.Struct({
  version: Schema.Literal(1),
  requestId: Schema.String,
  action: Schema.String,
  inputs: Schema.Record({ key: Schema.String, value: Schema.Unknown }),
  inputsHash: Schema.String,
  context: Schema.Struct({
    contextId: Schema.String,
    branch: Schema.NullOr(Schema.String),
    head: Schema.NullOr(Schema.String),
    tree: Schema.String
  }),
  state: ReceiptState,
  phases: Phases,
  /** What reconciliation looks for (the effect's observable result), fixed at the intent. */
  expect: Schema.Record({ key: Schema.String, value: Schema.Unknown }),
  outcome: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.Unknown })),
  history: Schema.Array(
    Schema.Struct({ state: ReceiptState, at: Schema.String, note: Schema.optional(Schema.String) })
  ),
  createdAt: Schema.String,
  updatedAt: Schema.String
})
export type Receipt = typeof Receipt.Type

export const SETTLED: ReadonlyArray<ReceiptState> = ["succeeded", "failed"]
const RANK: Record<ReceiptState, number> = { needs_confirmation: 0, unknown: 1, succeeded: 2, failed: 2 }

/** Whether a receipt may move from `from` to `to`: forward only, and never out of a settled state. */
export const canAdvance = (from: ReceiptState, to: ReceiptState): boolean =>
  !SETTLED.includes(from) && RANK[to] > RANK[from]

/** The receipt moved to `to` (with phases and outcome), or the refusal when that would go back. */
export const advance = (
  receipt: Receipt,
  to: ReceiptState,
  at: string,
  change: {
    readonly phases?: Partial<Phases>
    readonly outcome?: Record<string, unknown>
    readonly expect?: Record<string, unknown>
    readonly note?: string
  } = {}
): Either.Either<Receipt, ToolError> =>
  canAdvance(receipt.state, to)
    ? Either.right({
        ...receipt,
        state: to,
        phases: { ...receipt.phases, ...change.phases },
        ...defined({ outcome: change.outcome }),
        expect: change.expect ?? receipt.expect,
        history: [...receipt.history, { state: to, at, ...defined({ note: change.note }) }],
        updatedAt: at
      })
    : Either.left(
        toolError("EDIT_CONFLICT", `receipt ${receipt.requestId} is ${receipt.state}; it cannot become ${to}.`, {
          request_id: receipt.requestId
        })
      )

/** No receipt for a request id: NOT_FOUND, which proves nothing about the effect. */
export const noReceipt = (requestId: string) =>
  toolError(
    "NOT_FOUND",
    `There is no receipt for request ${requestId}. A missing receipt does not prove the effect was absent; do not create a replacement request on that basis, ask the user to check.`,
    { request_id: requestId }
  )

/** A request id reused with other inputs: EDIT_CONFLICT (an original request keeps its exact inputs). */
export const conflict = (requestId: string) =>
  toolError(
    "EDIT_CONFLICT",
    `request_id ${requestId} was already used with different inputs; an original request keeps its exact inputs. Poll it with get_workspace_operation, or create a new request id for a new action.`,
    { request_id: requestId }
  )

export const receiptPath = (requestId: string) => `receipts/${requestId.toLowerCase()}.json`

/** Reads a receipt; undefined when there is none; IO_ERROR naming the file when it does not decode. */
export const readReceipt = (requestId: string) =>
  Effect.gen(function* () {
    const store = yield* StateReads
    // readJson decodes through the Schema; a bad file is IO_ERROR naming it.
    return (yield* store.readJson(receiptPath(requestId), Receipt)) as Receipt | undefined
  })

export const writeReceipt = (receipt: Receipt) =>
  Effect.flatMap(OwnStore, (store) => store.writeJson(receiptPath(receipt.requestId), receipt))

/** Under the receipt's lock: reads it, lets `f` decide, writes what `f` returns (if anything). */
export const withReceiptLock = <A, E, R>(requestId: string, effect: Effect.Effect<A, E, R>) =>
  Effect.flatMap(StateReads, (store) => store.locked(receiptPath(requestId), effect))

/** `user:pass@`, GitHub tokens and absolute paths out of a message (git's stderr can name any of them). */
export const scrubText = (text: string): string =>
  text
    .replace(/([a-z][a-z0-9+.-]*:\/\/)[^/@\s]*@/gi, "$1")
    .replace(/\b(gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})\b/g, "[redacted]")
    .replace(/(^|[\s'"`(=:])\/(?!\/)[^\s'"`)]*/g, "$1<absolute path>")

/** Every string of a JSON value through scrubText. */
export const scrubDeep = (value: unknown): unknown =>
  typeof value === "string"
    ? scrubText(value)
    : Array.isArray(value)
      ? value.map(scrubDeep)
      : value !== null && typeof value === "object"
        ? Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, scrubDeep(inner)]))
        : value

/** The receipt as the model sees it: snake_case like the reference's names, messages scrubbed (no absolute path, no credentials). */
export const receiptData = (receipt: Receipt) => ({
  request_id: receipt.requestId,
  action: receipt.action,
  state: receipt.state,
  settled: SETTLED.includes(receipt.state),
  phases: receipt.phases,
  inputs: receipt.inputs,
  inputs_hash: receipt.inputsHash,
  context: { context_id: receipt.context.contextId, branch: receipt.context.branch, head: receipt.context.head },
  ...(receipt.outcome === undefined ? {} : { outcome: scrubDeep(receipt.outcome) as Record<string, unknown> }),
  history: receipt.history
})

/** The request ids whose receipts are `unknown` (run, outcome not proven), other than `except`. */
export const unsettledRequests = (except: string) =>
  Effect.gen(function* () {
    const store = yield* StateReads
    const entries = yield* store
      .list("receipts")
      .pipe(Effect.catchAll(() => Effect.succeed([] as ReadonlyArray<{ readonly name: string }>)))
    const out: Array<string> = []
    for (const entry of entries) {
      if (!entry.name.endsWith(".json")) continue
      const id = entry.name.slice(0, -5)
      if (id === except.toLowerCase()) continue
      const receipt = yield* readReceipt(id).pipe(Effect.catchAll(() => Effect.succeed(undefined)))
      if (receipt?.state === "unknown") out.push(receipt.requestId)
    }
    return out.sort()
  })

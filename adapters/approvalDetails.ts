/**
 * What the terminal shows of a record so the user can decide it there: the files a transaction
 * touches (and its full diff), a command's argv, a URL, a plan's text. Read from the records the
 * tools already keep under .agentic/ (a transaction's transaction.json and changes.diff, a plan's
 * plan.md); nothing is written.
 */
import * as Effect from "effect/Effect"
import type { ApprovalRecord } from "../core/gate/records.ts"
import type { WorkspaceRuntime } from "../core/runtime.ts"
import { StateStore } from "../core/store/StateStore.ts"
import { TransactionRecordSchema } from "../core/tools/edit/record.ts"

/** The parts of a record the terminal shows. */
export interface RecordDetails {
  readonly files?: ReadonlyArray<string>
  readonly argv?: ReadonlyArray<string>
  readonly cwd?: string
  readonly url?: string
  /** The full unified diff (transactions). */
  readonly diff?: string
  /** A plan's markdown. */
  readonly plan?: string
}

const strings = (value: unknown): ReadonlyArray<string> =>
  Array.isArray(value) ? value.filter((item): item is string => typeof item === "string") : []

/** The paths named by edit operations (path, from, to). */
const operationPaths = (operations: unknown): ReadonlyArray<string> =>
  Array.isArray(operations)
    ? operations.flatMap((operation) =>
        ["path", "from", "to"]
          .map((key) => (operation as Record<string, unknown>)?.[key])
          .filter((value): value is string => typeof value === "string")
      )
    : []

/** Reads what a record stands for. */
export const recordDetails = (runtime: WorkspaceRuntime, record: ApprovalRecord): Promise<RecordDetails> =>
  runtime
    .run(
      Effect.gen(function* () {
        const store = yield* StateStore
        const read = (rel: string) => Effect.orElseSucceed(store.readText(rel), () => undefined)
        if (record.kind === "plan") {
          const plan = yield* read(`plans/${record.id}/plan.md`)
          return plan === undefined ? {} : { plan }
        }
        const args = (record.resume?.arguments ?? {}) as Record<string, unknown>
        const out: { -readonly [K in keyof RecordDetails]: RecordDetails[K] } = {}
        const tx = args["transaction_id"]
        if (typeof tx === "string" && /^tx_[A-Za-z0-9]+$/.test(tx)) {
          const transaction = yield* Effect.orElseSucceed(
            store.readJson(`transactions/${tx}/transaction.json`, TransactionRecordSchema),
            () => undefined
          )
          const files = (transaction?.files ?? []).map((file) => `${file.path} (${file.change})`)
          if (files.length > 0) out.files = files
          const diff = yield* read(`transactions/${tx}/changes.diff`)
          if (diff !== undefined) out.diff = diff
        }
        const paths = [
          ...operationPaths(args["operations"]),
          ...(typeof args["path"] === "string" ? [args["path"] as string] : [])
        ]
        if (out.files === undefined && paths.length > 0) out.files = paths
        if (typeof args["executable"] === "string") out.argv = [args["executable"] as string, ...strings(args["args"])]
        if (typeof args["cwd"] === "string") out.cwd = args["cwd"] as string
        if (typeof args["url"] === "string") out.url = args["url"] as string
        return out
      })
    )
    .catch(() => ({}))

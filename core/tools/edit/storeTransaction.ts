/**
 * Storing a planned workspace_edit transaction: its record, unified diff and review.md, written in one store
 * call with the record last, so whoever finds the record finds the diff and review.
 */
import * as Effect from "effect/Effect"
import { newId, sha256Bytes, sha256Text } from "../../gate/hash.ts"
import type { Artifact } from "../../protocol/envelope.ts"
import { OwnStore } from "../../store/StateStore.ts"
import { nowIso } from "../../text/time.ts"
import { reviewMarkdown, transactionDiff } from "./diff.ts"
import type { PlannedTransaction } from "./planner.ts"
import { type RecordedFile, type TransactionRecord, txPaths } from "./record.ts"
import type { StoredOperation } from "./schema.ts"
import { defined } from "../../text/defined.ts"

/** Stores a planned transaction (status planned) with its diff and review; `sections` are extra review.md sections. */
export const storeTransaction = (
  operations: ReadonlyArray<StoredOperation>,
  operationsHash: string,
  approvalHash: string,
  planned: PlannedTransaction,
  key: string | undefined,
  sections?: ReadonlyArray<string>
) =>
  Effect.gen(function* () {
    const store = yield* OwnStore
    const id = yield* newId("tx")
    const createdAt = yield* nowIso
    const paths = txPaths(id)
    const files: Array<RecordedFile> = yield* Effect.forEach(planned.files, (file) =>
      Effect.map(file.after.type === "file" ? sha256Bytes(file.after.bytes) : Effect.succeed(null), (afterSha256) => ({
        path: file.path,
        change: file.change,
        beforeSha256: file.beforeSha256,
        afterSha256,
        ...(file.before.type === "file" && file.before.mode !== undefined ? { beforeMode: file.before.mode } : {}),
        ...(file.after.type === "file" && file.after.mode !== undefined ? { afterMode: file.after.mode } : {})
      }))
    )
    const diff = transactionDiff(planned.files, planned.directories)
    const review = reviewMarkdown({
      id,
      createdAt,
      files,
      directories: planned.directories,
      destructive: planned.destructive,
      diffPath: store.path(paths.diff),
      ...defined({ sections })
    })
    const artifact = (kind: string, rel: string, text: string, description: string) =>
      Effect.map(
        sha256Text(text),
        (sha256): Artifact => ({
          kind,
          path: store.path(rel),
          sha256,
          bytes: new TextEncoder().encode(text).length,
          description
        })
      )
    const artifacts = [
      yield* artifact("diff", paths.diff, diff, `Unified diff of ${id}`),
      yield* artifact("review", paths.review, review, `Review of ${id}: files, hashes, destructive reasons`)
    ]
    const record: TransactionRecord = {
      version: 1,
      id,
      status: "planned",
      createdAt,
      ...defined({ idempotencyKey: key }),
      operationsHash,
      approvalHash,
      operations,
      touched: planned.touched,
      files,
      directories: planned.directories,
      createdDirectories: planned.createdDirectories,
      destructive: planned.destructive,
      artifacts
    }
    // One store write: the folder checked and made once, the diff and review first, the record last (a
    // transaction exists once its record does, so whoever finds the record finds the diff and review).
    // A planned transaction is stored without fsync: a preview lost in a crash is harmless (the caller previews
    // again), and commit re-verifies every before-hash against the files anyway. Committing makes it durable.
    yield* store.writeTexts(
      paths.dir,
      [
        { name: "changes.diff", text: diff },
        { name: "review.md", text: review },
        { name: "transaction.json", text: `${JSON.stringify(record, null, 2)}\n` }
      ],
      { durable: false }
    )
    return { record, diff }
  })

/**
 * Capture: a command run over a copy-on-write overlay of the workspace leaves the real tree untouched; when it
 * ends, the host has written what it created, modified and deleted (`.agentic/jobs/<id>/capture/manifest.json`
 * and a copy of each written file under `files/`). This module turns that into a planned workspace_edit
 * transaction: text files as create/rewrite with their exact content (so the usual diff preview applies),
 * anything else (binary, a BOM, more than the edit limit) as a byte-exact copy from the capture folder,
 * deletions as delete, new empty folders as mkdir. Committing it is an ordinary gated, journaled commit.
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { toolError, type ToolError } from "../../protocol/errors.ts"
import { Workspace } from "../../services/Workspace.ts"
import { OwnStore } from "../../store/StateStore.ts"
import { planCapturedTransaction } from "../edit/interpret.ts"
import { MAX_OPERATIONS, MAX_TEXT_CHARS, type Operation } from "../edit/schema.ts"
import { jobPaths } from "./jobs.ts"

/** What the host's differ recorded (adapters/node/captureDiff.mjs). */
export interface CaptureManifest {
  readonly created: ReadonlyArray<string>
  readonly modified: ReadonlyArray<string>
  readonly deleted: ReadonlyArray<string>
  readonly directories: ReadonlyArray<string>
  readonly skipped: ReadonlyArray<{ readonly path: string; readonly reason: string }>
  /** What the real tree held at each reported path when the command ended: a file's SHA-256, "missing", "directory" or "other". */
  readonly base?: Readonly<Record<string, string>>
  /** Reported paths the real tree changed at while the command ran (the user's edits): their commit conflicts. */
  readonly changedDuringRun?: ReadonlyArray<string>
}

/** The before-state a path changed during the run is bound to: no file hashes to it, so the commit fails EDIT_CONFLICT. */
export const CHANGED_DURING_RUN = "changed-in-the-real-tree-while-the-command-ran"

/**
 * The before-state the commit is checked against, per reported path: what the real tree held when the
 * command ended, or CHANGED_DURING_RUN for a path the user changed while it ran. So a user edit made while
 * the command ran, or after it ended but before the transaction was planned, makes the commit fail
 * EDIT_CONFLICT instead of overwriting it. A manifest without a base (an older differ) binds nothing more.
 */
export const expectedBefore = (manifest: CaptureManifest): ReadonlyMap<string, string> => {
  const expected = new Map<string, string>(Object.entries(manifest.base ?? {}))
  for (const rel of manifest.changedDuringRun ?? []) expected.set(rel, CHANGED_DURING_RUN)
  return expected
}

const fatal = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true })
const encoder = new TextEncoder()

/** The text of bytes that round-trip exactly through a string (UTF-8, no NUL, no BOM), else undefined. */
export const exactText = (bytes: Uint8Array): string | undefined => {
  if (bytes.includes(0) || (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf)) return undefined
  let text: string
  try {
    text = fatal.decode(bytes)
  } catch {
    return undefined
  }
  if (text.length > MAX_TEXT_CHARS) return undefined
  const back = encoder.encode(text)
  return back.length === bytes.length && back.every((byte, index) => byte === bytes[index]) ? text : undefined
}

/** The operations of a captured change set, in a stable order. */
export const captureOperations = (
  manifest: CaptureManifest,
  bytesOf: (rel: string) => Uint8Array | undefined,
  capturedPath: (rel: string) => string,
  carriageReturnBefore: (rel: string) => boolean
): ReadonlyArray<Operation> => {
  const ops: Array<Operation> = []
  for (const rel of manifest.deleted) ops.push({ type: "delete", path: rel })
  const written = [...manifest.created, ...manifest.modified]
  for (const dir of manifest.directories) {
    if (
      !written.some((file) => file.startsWith(`${dir}/`)) &&
      !manifest.directories.some((other) => other.startsWith(`${dir}/`))
    )
      ops.push({ type: "mkdir", path: dir })
  }
  const write = (rel: string, existing: boolean) => {
    const bytes = bytesOf(rel)
    // Text operations follow the file's line endings; a CR anywhere (before or after) goes by exact copy instead.
    const candidate = bytes === undefined ? undefined : exactText(bytes)
    const text =
      candidate === undefined || candidate.includes("\r") || (existing && carriageReturnBefore(rel))
        ? undefined
        : candidate
    if (text === undefined)
      ops.push({ type: "copy", from: capturedPath(rel), to: rel, ...(existing ? { overwrite: true } : {}) })
    else if (existing) ops.push({ type: "rewrite", path: rel, content: text, allow_line_numbers: true })
    else ops.push({ type: "create", path: rel, content: text, allow_line_numbers: true })
  }
  for (const rel of manifest.created) write(rel, false)
  for (const rel of manifest.modified) write(rel, true)
  return ops
}

/** The transaction of a captured job: planned once (later calls return the same id), or the reason it could not be. */
export const captureTransaction = (jobId: string) =>
  Effect.gen(function* () {
    const store = yield* OwnStore
    const dir = `${jobPaths(jobId).dir}/capture`
    return yield* store.locked(
      `${dir}/transaction.json`,
      Effect.gen(function* () {
        const done = yield* store.readJson(`${dir}/transaction.json`, CaptureOutcomeSchema)
        if (done !== undefined) return done as CaptureOutcome
        const manifest = yield* store.readJson(`${dir}/manifest.json`, CaptureManifestSchema)
        if (manifest === undefined) {
          return {
            error:
              "the command ended before its changes could be captured (it was cancelled, timed out or killed, or the overlay could not be mounted)"
          } as CaptureOutcome
        }
        const files = new Map<string, Uint8Array>()
        for (const rel of [...manifest.created, ...manifest.modified]) {
          const bytes = yield* store.readBytes(`${dir}/files/${rel}`)
          if (bytes !== undefined) files.set(rel, bytes)
        }
        const summary = {
          created: manifest.created,
          modified: manifest.modified,
          deleted: manifest.deleted,
          directories: manifest.directories,
          ...(manifest.skipped.length > 0 ? { skipped: manifest.skipped } : {})
        }
        const changedDuringRun = manifest.changedDuringRun ?? []
        const workspace = yield* Workspace
        const withCr = new Set<string>()
        for (const rel of manifest.modified) {
          const before = yield* Effect.orElseSucceed(workspace.read(rel), () => new Uint8Array())
          if (before.includes(13)) withCr.add(rel)
        }
        const ops = captureOperations(
          manifest,
          (rel) => files.get(rel),
          (rel) => store.path(`${dir}/files/${rel}`),
          (rel) => withCr.has(rel)
        )
        let outcome: CaptureOutcome
        if (ops.length === 0) outcome = { changes: summary }
        else if (ops.length > MAX_OPERATIONS)
          outcome = {
            changes: summary,
            error: `the command changed ${ops.length} paths; one transaction holds at most ${MAX_OPERATIONS}`
          }
        else {
          const planned = yield* Effect.either(planCapturedTransaction(ops, expectedBefore(manifest)))
          outcome =
            planned._tag === "Right"
              ? {
                  changes: summary,
                  transactionId: planned.right.record.id,
                  destructive: planned.right.record.destructive.length > 0,
                  ...(changedDuringRun.length > 0 ? { changedDuringRun } : {})
                }
              : {
                  changes: summary,
                  error: `${planned.left.code}: ${planned.left.message}`,
                  ...(changedDuringRun.length > 0 ? { changedDuringRun } : {})
                }
        }
        yield* store.writeJson(`${dir}/transaction.json`, outcome)
        return outcome as CaptureOutcome
      })
    )
  })

/** What capture produced for a job. */
export interface CaptureOutcome {
  readonly transactionId?: string
  readonly destructive?: boolean
  readonly changes?: {
    readonly created: ReadonlyArray<string>
    readonly modified: ReadonlyArray<string>
    readonly deleted: ReadonlyArray<string>
    readonly directories: ReadonlyArray<string>
    readonly skipped?: ReadonlyArray<{ readonly path: string; readonly reason: string }>
  }
  readonly error?: string
  /** Paths the real tree changed at while the command ran: committing the transaction fails EDIT_CONFLICT on them. */
  readonly changedDuringRun?: ReadonlyArray<string>
}

const Paths = Schema.Array(Schema.String)
const Skipped = Schema.Array(Schema.Struct({ path: Schema.String, reason: Schema.String }))

/** The Schema of capture/manifest.json. */
export const CaptureManifestSchema: Schema.Schema<CaptureManifest> = Schema.Struct({
  created: Paths,
  modified: Paths,
  deleted: Paths,
  directories: Paths,
  skipped: Skipped
})

/** The Schema of capture/transaction.json. */
export const CaptureOutcomeSchema: Schema.Schema<CaptureOutcome> = Schema.Struct({
  transactionId: Schema.optional(Schema.String),
  destructive: Schema.optional(Schema.Boolean),
  changes: Schema.optional(
    Schema.Struct({
      created: Paths,
      modified: Paths,
      deleted: Paths,
      directories: Paths,
      skipped: Schema.optional(Skipped)
    })
  ),
  error: Schema.optional(Schema.String)
})

/** The refusal where capture cannot run. */
export const captureUnavailable = (reason: string): ToolError =>
  toolError(
    "SANDBOX_UNAVAILABLE",
    `capture: true needs the command sandbox with a copy-on-write overlay, which is not available here: ${reason}. Nothing was run. Run the command without capture, or on a Linux host with bubblewrap and user namespaces.`,
    { field: "capture", reason }
  )

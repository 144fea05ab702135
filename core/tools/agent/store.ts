/**
 * Runs on disk: `.agentic/runs/<run_id>/state.json` (a Schema, decoded on every read; a bad file is
 * IO_ERROR naming it) and `transcript.jsonl` (one entry a line), each written under the store lock.
 */
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import { toolError, type ToolError } from "../../protocol/errors.ts"
import { OwnStore, StateReads } from "../../store/StateStore.ts"
import { nowIso } from "../../text/time.ts"
import { RUNS_DIR } from "./paths.ts"
import { type RunState, RunState as RunStateSchema, TERMINAL } from "./schema.ts"

/** The runs folder under .agentic/ (paths.ts). */
export { RUNS_DIR }
export const stateFile = (runId: string) => `${RUNS_DIR}/${runId}/state.json`
export const transcriptFile = (runId: string) => `${RUNS_DIR}/${runId}/transcript.jsonl`

const decodeState = Schema.decodeUnknownEither(RunStateSchema)

const parseState = (text: string, path: string): Either.Either<RunState, ToolError> => {
  let raw: unknown
  try {
    raw = JSON.parse(text)
  } catch {
    return Either.left(
      toolError("IO_ERROR", `${path} is not valid JSON; the run's state is unreadable: move the run's folder aside.`, {
        path
      })
    )
  }
  return Either.mapLeft(decodeState(raw), () =>
    toolError("IO_ERROR", `${path} does not hold a run state this version reads; move the run's folder aside.`, {
      path
    })
  )
}

/** The run's state, or NOT_FOUND naming the repair. */
export const readRun = (runId: string) =>
  Effect.gen(function* () {
    const store = yield* StateReads
    const text = yield* store.readText(stateFile(runId))
    if (text === undefined) {
      return yield* Effect.fail(toolError("NOT_FOUND", `No run ${runId}. List runs with {"action":"list"}.`, { runId }))
    }
    return yield* parseState(text, store.path(stateFile(runId)))
  })

/** Writes a new run's state (under the lock). */
export const writeRun = (state: RunState) =>
  Effect.flatMap(OwnStore, (store) =>
    store.locked(stateFile(state.runId), store.writeText(stateFile(state.runId), `${JSON.stringify(state, null, 2)}\n`))
  )

/**
 * A locked read-modify-write of a run's state. A run that is already terminal (cancelled under the
 * worker's feet) is never overwritten: `f` is skipped and the current state returned.
 */
export const updateRun = (
  runId: string,
  f: (state: RunState) => RunState,
  options: { readonly overTerminal?: boolean } = {}
) =>
  Effect.gen(function* () {
    const store = yield* OwnStore
    return yield* store.locked(
      stateFile(runId),
      Effect.gen(function* () {
        const current = yield* readRun(runId)
        if (TERMINAL.includes(current.status) && options.overTerminal !== true) return current
        const next = { ...f(current), updatedAt: yield* nowIso }
        yield* store.writeText(stateFile(runId), `${JSON.stringify(next, null, 2)}\n`)
        return next
      })
    )
  })

/** One transcript entry: a type and whatever fields that type carries. */
export const TranscriptEntrySchema = Schema.Struct(
  { type: Schema.String },
  Schema.Record({ key: Schema.String, value: Schema.Unknown })
)
export type TranscriptEntry = { readonly type: string; readonly [field: string]: unknown }
const decodeEntry = Schema.decodeUnknownEither(TranscriptEntrySchema)

/** Appends an entry under the run's lock, numbered after the last one. */
export const appendEntry = (runId: string, entry: TranscriptEntry) =>
  Effect.gen(function* () {
    const store = yield* OwnStore
    const at = yield* nowIso
    yield* store.locked(
      transcriptFile(runId),
      store.appendText(transcriptFile(runId), `${JSON.stringify({ at, ...entry })}\n`)
    )
  })

/**
 * The transcript's entries, each line decoded (TranscriptEntrySchema). A line that is not JSON is a torn
 * write (a kill mid-append; the next append then continues that line) and is skipped; a line that is JSON
 * but not an entry was not written by a run, and is IO_ERROR naming the file and the line.
 */
export const readTranscript = (runId: string) =>
  Effect.gen(function* () {
    const store = yield* StateReads
    const text = (yield* store.readText(transcriptFile(runId))) ?? ""
    const entries: Array<TranscriptEntry> = []
    for (const [index, line] of text.split("\n").entries()) {
      if (line.trim() === "") continue
      const json = Either.try(() => JSON.parse(line) as unknown)
      if (Either.isLeft(json)) continue
      const entry = decodeEntry(json.right)
      if (Either.isRight(entry)) {
        entries.push(entry.right)
        continue
      }
      const path = store.path(transcriptFile(runId))
      return yield* Effect.fail(
        toolError(
          "IO_ERROR",
          `${path} line ${index + 1} is not a transcript entry; move the run's folder aside (its state is state.json).`,
          { path, line: index + 1 }
        )
      )
    }
    return entries
  })

/** Every run's state, newest first (unreadable ones are skipped). */
export const listRuns = Effect.gen(function* () {
  const store = yield* StateReads
  const entries = yield* Effect.orElseSucceed(store.list(RUNS_DIR), () => [])
  const runs: Array<RunState> = []
  for (const entry of entries) {
    if (!entry.name.startsWith("run_")) continue
    const state = yield* Effect.orElseSucceed(readRun(entry.name), () => undefined)
    if (state !== undefined) runs.push(state)
  }
  return runs.sort((a, b) => b.createdAt.localeCompare(a.createdAt))
})

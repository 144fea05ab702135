/**
 * A session's snapshot files as a call reads them: snapshots/<id>.txt (the text) and snapshots/<id>.refs.json
 * (the refs it minted). Both are named by the snapshot id, the hash of the url and the text with its refs, and
 * refs are never reused, so a file once written never changes: what this process wrote or read of one is kept
 * in memory (a few, by absolute path) and a later page or a ref costs no read, decode or hash of it again.
 * The session record stays the source of truth for which snapshot is the latest.
 */
import * as Effect from "effect/Effect"
import { sha256Text } from "../../gate/hash.ts"
import { toolError } from "../../protocol/errors.ts"
import { StateReads } from "../../store/StateStore.ts"
import { RefMap, type SessionRecord, sessionPaths } from "./load.ts"

/** A stored text's lines (none for an empty one; the final newline ends the last line). */
export const linesOf = (text: string | undefined) =>
  text === undefined || text === "" ? [] : text.replace(/\n$/, "").split("\n")

/** A snapshot text's SHA-256 and size in bytes, as its artifact names them. */
export const textDigest = (content: string) =>
  Effect.map(sha256Text(content), (sha256) => ({ sha256, bytes: new TextEncoder().encode(content).length }))

/** Snapshots kept in memory per kind of file: a session pages through its latest, a few sessions at once. */
const KEPT = 4

/** A small map that forgets its least recently used entry past `max`. */
const keptMap = <A>(max: number) => {
  const entries = new Map<string, A>()
  return {
    get: (key: string): A | undefined => {
      const value = entries.get(key)
      if (value !== undefined) {
        entries.delete(key)
        entries.set(key, value)
      }
      return value
    },
    set: (key: string, value: A) => {
      entries.delete(key)
      entries.set(key, value)
      for (const oldest of entries.keys()) {
        if (entries.size <= max) break
        entries.delete(oldest)
      }
    }
  }
}

const keptLines = keptMap<ReadonlyArray<string>>(KEPT)
const keptRefs = keptMap<RefMap>(KEPT)

/** Keeps what takeSnapshot just wrote, so the pages and refs of the snapshot are served from memory. */
export const keepSnapshot = (
  abs: (rel: string) => string,
  sessionId: string,
  snapshotId: string,
  lines: ReadonlyArray<string>,
  refs: RefMap
) => {
  const paths = sessionPaths(sessionId)
  keptLines.set(abs(paths.snapshot(snapshotId)), lines)
  keptRefs.set(abs(paths.refs(snapshotId)), refs)
}

/** The lines of a stored snapshot (none when its file is gone; that is not kept). */
export const snapshotLines = (sessionId: string, snapshotId: string) =>
  Effect.gen(function* () {
    const store = yield* StateReads
    const rel = sessionPaths(sessionId).snapshot(snapshotId)
    const known = keptLines.get(store.abs(rel))
    if (known !== undefined) return known
    const text = yield* store.readText(rel)
    const lines = linesOf(text)
    if (text !== undefined) keptLines.set(store.abs(rel), lines)
    return lines
  })

/**
 * The record with its latest snapshot's refs filled in (refStanding and a control's target read them there):
 * from the record itself when an older version wrote them into it, else from snapshots/<id>.refs.json. A
 * refs file that is missing is IO_ERROR telling the model to read the page again (a fresh read writes one).
 */
export const withRefs = (record: SessionRecord) =>
  Effect.gen(function* () {
    const latest = record.latest
    if (latest === undefined || latest.refs !== undefined) return record
    const store = yield* StateReads
    const rel = sessionPaths(record.id).refs(latest.snapshotId)
    const refs = keptRefs.get(store.abs(rel)) ?? (yield* store.readJson(rel, RefMap))
    if (refs === undefined) {
      return yield* Effect.fail(
        toolError(
          "IO_ERROR",
          `The refs of snapshot ${latest.snapshotId.slice(0, 12)}… (.agentic/${rel}) are missing; read the page again (workspace_browser {"action":"read","session_id":"${record.id}"}) and use a ref from that read.`,
          { path: `.agentic/${rel}` }
        )
      )
    }
    keptRefs.set(store.abs(rel), refs)
    return { ...record, latest: { ...latest, refs } }
  })

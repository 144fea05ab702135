/**
 * workspace_browser's durable state under `.agentic/browser/<session_id>/`: session.json (the record:
 * how to reconnect, the ref counter, the latest snapshot), snapshots/<id>.txt (the full snapshot text, also
 * the read's artifact), snapshots/<id>.refs.json (the refs that snapshot minted) and events.json (written by
 * the host's supervisor). Every read of a record decodes it; a bad file is IO_ERROR naming it.
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { toolError, type ToolError } from "../../protocol/errors.ts"
import { BrowserReads, BrowserSessions, type PageState } from "../../services/Browser.ts"
import { CurrentSettings } from "../../services/CurrentSettings.ts"
import { StateReads, OwnStore } from "../../store/StateStore.ts"
import { nowIso } from "../../text/time.ts"
import { defined } from "../../text/defined.ts"

const Endpoint = Schema.Struct({
  cdpUrl: Schema.String,
  proxyPort: Schema.Number,
  supervisorPid: Schema.Number,
  supervisorIdentity: Schema.String,
  browserPid: Schema.Number,
  executablePath: Schema.String,
  userDataDir: Schema.String
})

const RefTargetSchema = Schema.Struct({ path: Schema.String, role: Schema.String, name: Schema.String })

/** The refs one snapshot minted, by ref (snapshots/<id>.refs.json). */
export const RefMap = Schema.Record({ key: Schema.String, value: RefTargetSchema })
export type RefMap = typeof RefMap.Type

/**
 * The latest snapshot of a session: its id, where it was taken, its text's hash and size and how many refs
 * it minted. The refs themselves are in snapshots/<id>.refs.json, so a call that uses no ref never reads,
 * decodes or writes them again; `refs` is filled in when a ref is used (withRefs). A record written before
 * they moved there holds them here, and its hash, size and count are worked out from the files.
 */
const LatestSnapshot = Schema.Struct({
  snapshotId: Schema.String,
  url: Schema.String,
  title: Schema.String,
  takenAt: Schema.String,
  totalLines: Schema.Number,
  scope: Schema.optional(Schema.String),
  sha256: Schema.optional(Schema.String),
  bytes: Schema.optional(Schema.Number),
  refCount: Schema.optional(Schema.Number),
  refs: Schema.optional(RefMap)
})

/** One session's record. */
export const SessionRecord = Schema.Struct({
  version: Schema.Literal(1),
  id: Schema.String,
  status: Schema.Literal("open", "closed"),
  createdAt: Schema.String,
  lastUsedAt: Schema.String,
  closedAt: Schema.optional(Schema.String),
  closeReason: Schema.optional(Schema.Literal("close", "idle", "lost")),
  allowPrivateNetwork: Schema.Boolean,
  endpoint: Endpoint,
  url: Schema.String,
  title: Schema.String,
  nextRef: Schema.Number,
  latest: Schema.optional(LatestSnapshot),
  /** The ref ranges of earlier snapshots (newest first, at most 50), so STALE_REF can name a ref's snapshot. */
  history: Schema.Array(Schema.Struct({ snapshotId: Schema.String, firstRef: Schema.Number, nextRef: Schema.Number }))
})
export type SessionRecord = typeof SessionRecord.Type
export type LatestSnapshot = typeof LatestSnapshot.Type

/** The status list shows: a record still open whose supervisor is gone is lost. */
export type SessionStatus = "open" | "closed" | "lost"

/** Paths below .agentic/ of one session. */
export const sessionPaths = (id: string) => ({
  dir: `browser/${id}`,
  record: `browser/${id}/session.json`,
  events: `browser/${id}/events.json`,
  snapshot: (snapshotId: string) => `browser/${id}/snapshots/${snapshotId}.txt`,
  refs: (snapshotId: string) => `browser/${id}/snapshots/${snapshotId}.refs.json`,
  snapshots: `browser/${id}/snapshots`,
  screenshot: (stamp: string) => `browser/${id}/screenshots/${stamp}.png`
})

/**
 * Reads a session record; undefined when there is none. A file that does not decode is IO_ERROR
 * naming it (StateStore.readJson); one that decodes but names another session (copied or planted
 * into this folder) is refused the same way, so its endpoint is never used.
 */
export const readSession = (id: string): Effect.Effect<SessionRecord | undefined, ToolError, StateReads> =>
  Effect.gen(function* () {
    const store = yield* StateReads
    const record = yield* store.readJson(sessionPaths(id).record, SessionRecord)
    if (record === undefined || record.id === id) return record
    return yield* Effect.fail(
      toolError(
        "IO_ERROR",
        `The state file .agentic/${sessionPaths(id).record} holds session ${record.id}, not ${id}; close the session's browser by hand and move that folder aside.`,
        { path: `.agentic/${sessionPaths(id).record}` }
      )
    )
  })

/** A locked read-modify-write of one session record. */
export const updateSession = <B, E, R>(
  id: string,
  f: (record: SessionRecord) => Effect.Effect<readonly [B, SessionRecord], E, R>
) =>
  Effect.gen(function* () {
    const store = yield* OwnStore
    return yield* store.locked(
      sessionPaths(id).record,
      Effect.gen(function* () {
        const record = yield* readSession(id)
        if (record === undefined) return yield* Effect.fail(unknownSession(id))
        const [result, next] = yield* f(record)
        yield* store.writeJson(sessionPaths(id).record, next)
        return result
      })
    )
  })

const unknownSession = (id: string) =>
  toolError(
    "NOT_FOUND",
    `There is no browser session ${id}. List sessions with workspace_browser {"action":"list"} or open one with {"action":"open"}.`,
    { sessionId: id }
  )

/** The status of a record now: closed, open, or lost when its browser is gone. */
export const statusOf = (record: SessionRecord) =>
  Effect.gen(function* () {
    if (record.status === "closed") return "closed" as SessionStatus
    const browser = yield* BrowserReads
    return (yield* browser.alive(record.endpoint)) ? ("open" as SessionStatus) : ("lost" as SessionStatus)
  })

/** The open session `id` with a live browser, or the refusal (NOT_FOUND, or TRANSACTION_STATE for a closed or lost one). */
export const loadOpenSession = (id: string) =>
  Effect.gen(function* () {
    const record = yield* readSession(id)
    if (record === undefined) return yield* Effect.fail(unknownSession(id))
    const status = yield* statusOf(record)
    if (status !== "open") {
      const why =
        status === "lost"
          ? "its browser is gone (it crashed or was killed)"
          : record.closeReason === "idle"
            ? "it was idle longer than browserIdleMinutes and was closed"
            : "it was closed"
      return yield* Effect.fail(
        toolError(
          "TRANSACTION_STATE",
          `Browser session ${id} is ${status}: ${why}. Open a new session with workspace_browser {"action":"open"}.`,
          {
            sessionId: id,
            status
          }
        )
      )
    }
    return record
  })

/** Ends a session's processes and marks its record closed (idempotent). */
export const closeSession = (id: string, reason: "close" | "idle" | "lost") =>
  Effect.gen(function* () {
    const browser = yield* BrowserSessions
    const record = yield* readSession(id)
    if (record === undefined) return yield* Effect.fail(unknownSession(id))
    const ended = yield* browser.close(record.endpoint)
    const at = yield* nowIso
    yield* updateSession(id, (current) => {
      const { latest: _latest, ...rest } = current
      const next: SessionRecord =
        current.status === "closed" ? current : { ...rest, status: "closed", closedAt: at, closeReason: reason }
      return Effect.succeed([undefined, next] as const)
    })
    return { record, processesLeft: ended.processesLeft }
  })

/** Every session record, newest first (unreadable ones skipped). */
export const listSessions = Effect.gen(function* () {
  const store = yield* OwnStore
  const entries = yield* store.list("browser")
  const records: Array<SessionRecord> = []
  for (const entry of entries) {
    if (entry.type !== "directory" || !entry.name.startsWith("bs_")) continue
    const record = yield* Effect.orElseSucceed(readSession(entry.name), () => undefined)
    if (record !== undefined) records.push(record)
  }
  return records.sort((a, b) => (a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : 0))
})

/**
 * Closes every open session idle longer than browserIdleMinutes (run at the start of every call), and
 * marks lost ones closed after ending whatever is left of them. Returns the ids it closed.
 */
export const sweepIdle = Effect.gen(function* () {
  const settings = yield* CurrentSettings
  const nowMs = yield* Clock.currentTimeMillis
  const closed: Array<string> = []
  for (const record of yield* listSessions) {
    if (record.status !== "open") continue
    if (Date.parse(record.lastUsedAt) + settings.browserIdleMinutes * 60_000 <= nowMs) {
      yield* closeSession(record.id, "idle")
      closed.push(record.id)
    }
  }
  return closed
})

/** A use this recent is already on record: idle time is counted in whole minutes, so a touch within it is not written. */
const TOUCH_WITHIN_MS = 5_000

/**
 * Marks a session used now (idle time counts from here), showing `page` when given. `seen` is the record as
 * the call read it: when it already shows that page and a use within TOUCH_WITHIN_MS (a later page read right
 * after its first), nothing is written, so paging does not rewrite the record under its lock.
 */
export const touchSession = (seen: SessionRecord, page?: PageState) =>
  Effect.gen(function* () {
    const nowMs = yield* Clock.currentTimeMillis
    const samePage = page === undefined || (page.url === seen.url && page.title === seen.title)
    if (samePage && Math.abs(nowMs - Date.parse(seen.lastUsedAt)) < TOUCH_WITHIN_MS) return
    const at = yield* nowIso
    yield* updateSession(seen.id, (record) => {
      const next = { ...record, ...(page === undefined ? {} : { url: page.url, title: page.title }), lastUsedAt: at }
      return Effect.succeed([undefined, next] as const)
    })
  })

/** How a ref stands in a session: live in the latest snapshot, stale (from which snapshot), or never minted. */
export type RefStanding =
  | {
      readonly _tag: "Live"
      readonly snapshotId: string
      readonly target: { readonly path: string; readonly role: string; readonly name: string }
    }
  | { readonly _tag: "Stale"; readonly snapshotId: string | undefined }
  | { readonly _tag: "Unknown" }

/**
 * Where a ref stands (pure), in a record whose latest refs are filled in (stored.ts withRefs): refs are
 * minted in order, so a number at or past nextRef was never minted.
 */
export const refStanding = (record: SessionRecord, ref: string): RefStanding => {
  const number = Number(ref.slice(1))
  const latest = record.latest
  if (latest?.refs !== undefined && Object.hasOwn(latest.refs, ref)) {
    return { _tag: "Live", snapshotId: latest.snapshotId, target: latest.refs[ref]! }
  }
  if (!Number.isSafeInteger(number) || number >= record.nextRef) return { _tag: "Unknown" }
  // history holds every kept snapshot's range, the latest included; a number below all of them is older still.
  const from = record.history.find((entry) => number >= entry.firstRef && number < entry.nextRef)
  if (from === undefined) return { _tag: "Stale", snapshotId: undefined }
  return from.snapshotId === latest?.snapshotId ? { _tag: "Unknown" } : { _tag: "Stale", snapshotId: from.snapshotId }
}

/** The refusal for a ref that is not live: STALE_REF naming its snapshot, or NOT_FOUND for one never minted. */
export const refRefusal = (
  record: SessionRecord,
  ref: string,
  standing: Exclude<RefStanding, { _tag: "Live" }>
): ToolError =>
  standing._tag === "Stale"
    ? toolError(
        "STALE_REF",
        `Ref ${ref} is stale: it came from ${standing.snapshotId === undefined ? "an older snapshot" : `snapshot ${standing.snapshotId.slice(0, 12)}…`}, and the page has been read again since${record.latest === undefined ? "" : ` (latest snapshot ${record.latest.snapshotId.slice(0, 12)}…)`}. Refs are never reused: read the page again (workspace_browser {"action":"read","session_id":"${record.id}"}) and use a ref from that read.`,
        {
          ref,
          sessionId: record.id,
          ...defined({ snapshot: standing.snapshotId }),
          ...(record.latest === undefined ? {} : { latestSnapshot: record.latest.snapshotId })
        }
      )
    : toolError(
        "NOT_FOUND",
        `Ref ${ref} was never given out in session ${record.id}${record.latest === undefined ? " (nothing has been read yet)" : ""}. Use a ref exactly as the latest read shows it ([ref=e…]); read the page to get refs.`,
        { ref, sessionId: record.id }
      )

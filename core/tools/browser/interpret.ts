/**
 * workspace_browser's effects, through the Browser port and the state store only: open a session,
 * take a snapshot (minting refs and recording it as the session's latest), run a planned control and
 * report what changed, list, close. read is read.ts.
 */
import * as Effect from "effect/Effect"
import { newId, sha256Text, stableStringify } from "../../gate/hash.ts"
import { NetState } from "../../net/NetState.ts"
import type { ToolResult } from "../../protocol/envelope.ts"
import { toolError } from "../../protocol/errors.ts"
import { Browser, BrowserReads, type BrowserScope, BrowserSessions, type PageState } from "../../services/Browser.ts"
import { CurrentSettings } from "../../services/CurrentSettings.ts"
import { OwnStore } from "../../store/StateStore.ts"
import {
  closeSession,
  listSessions,
  loadOpenSession,
  readSession,
  type SessionRecord,
  sessionPaths,
  statusOf
} from "./load.ts"
import type { ControlPlan } from "./plan.ts"
import { renderSnapshot, snapshotDiff } from "./snapshot.ts"
import { keepSnapshot, snapshotLines, textDigest } from "./stored.ts"
import { pageEvents, snapshotArtifact } from "./view.ts"
import { nowIso } from "../../text/time.ts"
import { defined } from "../../text/defined.ts"

/** Earlier snapshots kept per session (their files and ref ranges). */
const KEEP_SNAPSHOTS = 20
const HISTORY = 50

/**
 * Records in NetState that web content reached the model ("browser read <url>"), so the opt-in
 * stageEgressAfterUntrustedRead stages the next web call after a browser read as after a research fetch.
 * about:blank (and other non-web pages) carry no web content and mark nothing.
 */
export const markRead = (url: string) =>
  /^https?:/i.test(url)
    ? Effect.flatMap(NetState, (net) => net.markUntrustedRead(`browser read ${url.slice(0, 500)}`))
    : Effect.void

/** Starts a session: the browser shows about:blank (loading a page is control navigate, which is gated). */
export const openSession = Effect.gen(function* () {
  const store = yield* OwnStore
  const browser = yield* BrowserSessions
  const settings = yield* CurrentSettings
  const id = yield* newId("bs")
  const paths = sessionPaths(id)
  const endpoint = yield* browser.launch({
    sessionDir: store.abs(paths.dir),
    executablePath: settings.browserExecutablePath,
    allowPrivateNetwork: settings.allowPrivateNetwork
  })
  const at = yield* nowIso
  // The browser was started on about:blank; open does not connect to it (the first read or control does).
  const page: PageState = { url: "about:blank", title: "" }
  const record: SessionRecord = {
    version: 1,
    id,
    status: "open",
    createdAt: at,
    lastUsedAt: at,
    allowPrivateNetwork: settings.allowPrivateNetwork,
    endpoint,
    url: page.url,
    title: page.title,
    nextRef: 1,
    history: []
  }
  yield* store.writeJson(paths.record, record)
  return {
    summary: `Opened browser session ${id} (headless Chromium, ${page.url}). Load a page with workspace_browser {"action":"control","session_id":"${id}","type":"navigate","url":"https://…"} (control needs the user's permission mode), then read it with {"action":"read","session_id":"${id}"}. Close it with {"action":"close","session_id":"${id}"} when done; it is closed after ${settings.browserIdleMinutes} idle minutes.`,
    data: {
      sessionId: id,
      status: "open",
      url: page.url,
      title: page.title,
      executablePath: endpoint.executablePath,
      sessionPath: `${store.path(paths.dir)}/`,
      idleMinutes: settings.browserIdleMinutes,
      allowPrivateNetwork: settings.allowPrivateNetwork
    },
    retention: { importance: "high", facts: [`browser session ${id} open`] }
  } satisfies ToolResult
})

/** Takes a snapshot of the page (or a scope), mints its refs and makes it the session's latest. */
export const takeSnapshot = (record: SessionRecord, scope: BrowserScope, scopeLabel?: string) =>
  Effect.gen(function* () {
    const browser = yield* BrowserReads
    const store = yield* OwnStore
    const tree = yield* browser.tree(record.endpoint, scope)
    const at = yield* nowIso
    const paths = sessionPaths(record.id)
    // Refs are minted inside the record's lock, so two processes reading at once never mint the same ref.
    const minted = yield* store.locked(
      paths.record,
      Effect.gen(function* () {
        const current = yield* readSession(record.id)
        if (current === undefined) return yield* Effect.die(new Error(`session record ${record.id} vanished`))
        const rendered = renderSnapshot(tree.nodes, current.nextRef, tree.rootId)
        const content = rendered.lines.length === 0 ? "" : `${rendered.lines.join("\n")}\n`
        const snapshotId = yield* sha256Text(stableStringify({ url: tree.page.url, tree: content }))
        const { sha256, bytes } = yield* textDigest(content)
        // The text and its refs are written before the record names them, so any process that reads the
        // record finds both; the refs stay out of the record, which every call reads and a touch rewrites.
        // Not fsynced: they serve only a live browser, and a crash that could lose them ends the browser too
        // (the session is lost and never read again); the record, which list and close still use, is.
        yield* store.writeTexts(
          paths.snapshots,
          [
            { name: `${snapshotId}.txt`, text: content },
            { name: `${snapshotId}.refs.json`, text: JSON.stringify(rendered.refs) }
          ],
          { durable: false }
        )
        const next: SessionRecord = {
          ...current,
          lastUsedAt: at,
          url: tree.page.url,
          title: tree.page.title,
          nextRef: rendered.nextRef,
          latest: {
            snapshotId,
            url: tree.page.url,
            title: tree.page.title,
            takenAt: at,
            totalLines: rendered.lines.length,
            ...defined({ scope: scopeLabel }),
            sha256,
            bytes,
            refCount: rendered.nextRef - rendered.firstRef
          },
          history: [{ snapshotId, firstRef: rendered.firstRef, nextRef: rendered.nextRef }, ...current.history].slice(
            0,
            HISTORY
          )
        }
        yield* store.writeJson(paths.record, next)
        keepSnapshot(store.abs, record.id, snapshotId, rendered.lines, rendered.refs)
        return { record: next, lines: rendered.lines, snapshotId, sha256, bytes }
      })
    )
    // Older snapshot files (text and refs) are pruned; their refs stay known as stale through the history.
    const keep = new Set(minted.record.history.slice(0, KEEP_SNAPSHOTS).map((entry) => entry.snapshotId))
    for (const entry of yield* store.list(paths.snapshots)) {
      if (!keep.has(entry.name.replace(/\.(txt|refs\.json)$/, "")))
        yield* Effect.ignore(store.remove(`${paths.snapshots}/${entry.name}`))
    }
    const artifact = snapshotArtifact(
      store.path(paths.snapshot(minted.snapshotId)),
      minted.sha256,
      minted.bytes,
      minted.lines.length
    )
    return { record: minted.record, page: tree.page, lines: minted.lines, snapshotId: minted.snapshotId, artifact }
  })

/** Runs a planned control, then snapshots the page: what changed (url, title, a short diff) and the new snapshot id. */
export const runControl = (plan: ControlPlan) =>
  Effect.gen(function* () {
    const browser = yield* Browser
    const record = yield* loadOpenSession(plan.sessionId)
    // A page-events file that does not decode is refused before the control runs.
    yield* pageEvents(record.id)
    const before = { url: record.url, title: record.title }
    const previousLines =
      record.latest === undefined ? undefined : yield* snapshotLines(record.id, record.latest.snapshotId)
    const outcome = yield* browser.act(record.endpoint, plan.action, plan.timeoutMs)
    // takeSnapshot reads the record again under its lock; this one gives only the endpoint and the id.
    const taken = yield* takeSnapshot(record, {})
    const diff = previousLines === undefined ? undefined : snapshotDiff(previousLines, taken.lines, 15)
    const page = taken.page
    // A control's result shows page content too (title, snapshot diff lines).
    yield* markRead(page.url)
    const urlChanged = page.url !== before.url
    const changes = [
      urlChanged ? `now at ${page.url}` : `still at ${page.url}`,
      page.title !== before.title ? `title "${page.title}"` : "",
      diff === undefined
        ? ""
        : diff.addedCount + diff.removedCount === 0
          ? "the snapshot is unchanged"
          : `${diff.addedCount} line(s) added, ${diff.removedCount} removed`
    ].filter((part) => part !== "")
    const extra: Array<string> = []
    if (outcome.met === false)
      extra.push(`The wait ended after ${plan.timeoutMs - 5000} ms without the condition being met.`)
    if (outcome.otherMatches !== undefined && outcome.otherMatches.length > 0)
      extra.push(
        `The text matched ${outcome.otherMatches.length + 1} visible elements; the first was clicked (others in data.otherMatches).`
      )
    const events = yield* pageEvents(record.id)
    return {
      summary: `${plan.title.replace(/^Browser [^:]+: /, "Did ")}: ${changes.join("; ")}. New snapshot ${taken.snapshotId.slice(0, 12)}… (${taken.lines.length} lines); refs from earlier reads are now stale, use data.added or read again.${extra.length === 0 ? "" : ` ${extra.join(" ")}`}`,
      data: {
        sessionId: record.id,
        type: plan.type,
        status: "done",
        url: page.url,
        title: page.title,
        previousUrl: before.url,
        urlChanged,
        snapshot: taken.snapshotId,
        totalLines: taken.lines.length,
        ...(diff === undefined
          ? {}
          : { added: diff.added, removed: diff.removed, addedCount: diff.addedCount, removedCount: diff.removedCount }),
        ...defined({
          httpStatus: outcome.status,
          met: outcome.met,
          result: outcome.result,
          otherMatches: outcome.otherMatches
        }),
        events
      },
      artifacts: [taken.artifact],
      retention: {
        importance: "normal",
        facts: [
          `browser ${record.id}: ${plan.type} done, at ${page.url.slice(0, 200)}, snapshot ${taken.snapshotId.slice(0, 16)}`
        ],
        omit_when_summarizing: ["added", "removed"]
      }
    } satisfies ToolResult
  })

/** list: every session with its status (open, closed, lost when its browser is gone), url and title. */
export const listAll = Effect.gen(function* () {
  const records = yield* listSessions
  const sessions = []
  for (const record of records.slice(0, 50)) {
    const status = yield* statusOf(record)
    sessions.push({
      sessionId: record.id,
      status,
      url: record.url,
      title: record.title,
      createdAt: record.createdAt,
      lastUsedAt: record.lastUsedAt,
      ...defined({ closedAt: record.closedAt, closeReason: record.closeReason })
    })
  }
  const open = sessions.filter((session) => session.status === "open")
  return {
    summary:
      sessions.length === 0
        ? 'No browser sessions. Open one with workspace_browser {"action":"open"}.'
        : `${sessions.length} browser session(s), ${open.length} open${records.length > 50 ? " (the newest 50 shown)" : ""}: ${sessions
            .slice(0, 5)
            .map(
              (session) =>
                `${session.sessionId} ${session.status}${session.status === "open" ? ` at ${session.url.slice(0, 80)}` : ""}`
            )
            .join("; ")}.`,
    data: { sessions, total: records.length },
    retention: {
      importance: "normal",
      facts: open.map((session) => `browser session ${session.sessionId} open at ${session.url.slice(0, 120)}`)
    }
  } satisfies ToolResult
})

/** close: ends the session's browser and proxy (no process of it is left) and marks it closed. */
export const closeOne = (id: string) =>
  Effect.gen(function* () {
    const record = yield* readSession(id)
    if (record === undefined) {
      return yield* Effect.fail(
        toolError(
          "NOT_FOUND",
          `There is no browser session ${id}. List sessions with workspace_browser {"action":"list"}.`,
          { sessionId: id }
        )
      )
    }
    const before = yield* statusOf(record)
    if (before === "closed") {
      return {
        summary: `Browser session ${id} was already closed${record.closeReason === "idle" ? " (idle)" : ""}; nothing was running.`,
        data: { sessionId: id, status: "closed", previousStatus: "closed", processesLeft: 0 },
        retention: { importance: "normal", facts: [`browser session ${id} closed`] }
      } satisfies ToolResult
    }
    const { processesLeft } = yield* closeSession(id, before === "lost" ? "lost" : "close")
    return {
      summary:
        processesLeft === 0
          ? `Closed browser session ${id}${before === "lost" ? " (its browser was already gone)" : ""}: no process of it is left.`
          : `Closed browser session ${id}, but ${processesLeft} of its processes are still there; close it again or end them by hand.`,
      data: { sessionId: id, status: "closed", previousStatus: before, processesLeft },
      retention: { importance: "normal", facts: [`browser session ${id} closed`] }
    } satisfies ToolResult
  })

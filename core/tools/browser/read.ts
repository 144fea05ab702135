/**
 * workspace_browser read: one page of the session's snapshot (a fresh snapshot at offset 0, the stored one
 * at a later offset) or of the page's readable text, with a screenshot when asked, the page's events and the
 * call that reads the next page, fitted to maxToolResultChars.
 */
import * as Effect from "effect/Effect"
import { sha256Bytes, sha256Text, stableStringify } from "../../gate/hash.ts"
import type { Artifact, ToolResult } from "../../protocol/envelope.ts"
import { toolError } from "../../protocol/errors.ts"
import { BrowserReads, type BrowserScope, type PageState } from "../../services/Browser.ts"
import { CurrentSettings } from "../../services/CurrentSettings.ts"
import { OwnStore } from "../../store/StateStore.ts"
import { defined } from "../../text/defined.ts"
import { writeArtifact } from "../fit.ts"
import { htmlModule } from "../research/extract.ts"
import { markRead, takeSnapshot } from "./interpret.ts"
import { loadOpenSession, type SessionRecord, sessionPaths, touchSession } from "./load.ts"
import { READ_DEFAULT_LIMIT, type ReadInput } from "./schema.ts"
import { readableText } from "./snapshot.ts"
import { linesOf, snapshotLines, textDigest, withRefs } from "./stored.ts"
import { fitLines, pageEvents, snapshotArtifact } from "./view.ts"

/** What a read is scoped to: the browser's scope and how the summary names it (none for the whole page). */
interface Scoped {
  readonly scope: BrowserScope
  readonly label: string | undefined
}

/** What a read shows before it is fitted: the lines, the snapshot (or text) id, the page, the ref count. */
interface ReadMaterial {
  readonly lines: ReadonlyArray<string>
  readonly snapshot: string
  readonly page: PageState
  readonly refCount: number | undefined
  readonly artifact: Artifact
}

/** The page's events as a read shows them (view.ts pageEvents). */
type PageEvents = Effect.Effect.Success<ReturnType<typeof pageEvents>>

/** The scope of a read: a selector, a live ref's element (undefined for a ref that is not live) or the page. */
const scopeOf = (
  record: SessionRecord,
  input: { readonly selector?: string | undefined; readonly ref?: string | undefined }
) => {
  if (input.selector !== undefined && input.ref !== undefined) {
    return Effect.fail(toolError("INVALID_INPUT", 'read takes "selector" or "ref", not both.', { field: "ref" }))
  }
  if (input.selector !== undefined)
    return Effect.succeed({ scope: { selector: input.selector } as BrowserScope, label: `selector ${input.selector}` })
  if (input.ref !== undefined) {
    const ref = input.ref
    const target = record.latest?.refs?.[ref]
    return target === undefined
      ? Effect.succeed(undefined)
      : Effect.succeed({ scope: { element: target } as BrowserScope, label: `ref ${ref}` })
  }
  return Effect.succeed({ scope: {} as BrowserScope, label: undefined })
}

/** The paging fields checked before the session is touched: a later page names its snapshot and takes no screenshot. */
const checkPaging = (input: ReadInput, offset: number) => {
  if (offset > 0 && input.snapshot === undefined) {
    return Effect.fail(
      toolError(
        "INVALID_INPUT",
        'field "snapshot" is required at a nonzero offset: pass data.snapshot of the previous read page exactly, or read again from offset 0.',
        { field: "snapshot" }
      )
    )
  }
  if (offset > 0 && input.screenshot === true) {
    return Effect.fail(
      toolError("INVALID_INPUT", "screenshot is taken with the first page (offset 0); leave it out when paging.", {
        field: "screenshot"
      })
    )
  }
  return Effect.void
}

/** Text mode: the live DOM reduced to readable text; its id is the hash of the url and the lines. */
const readText = (record: SessionRecord, scoped: Scoped, given: string | undefined) =>
  Effect.gen(function* () {
    const browser = yield* BrowserReads
    const read = yield* browser.html(record.endpoint, scoped.scope)
    const page = read.page
    const lines = linesOf(readableText(read.html, page.url, yield* htmlModule))
    const snapshot = yield* sha256Text(stableStringify({ url: page.url, text: lines }))
    if (given !== undefined && given !== snapshot) {
      return yield* Effect.fail(
        toolError(
          "SNAPSHOT_STALE",
          `The page text changed since snapshot ${given.slice(0, 12)}…; read it again from offset 0 without a snapshot.`,
          { snapshot: given, current: snapshot }
        )
      )
    }
    yield* touchSession(record, page)
    const full = `${lines.join("\n")}\n`
    // Under .agentic/artifacts/browser/, the tool's own artifacts (its OwnStore).
    const artifact = yield* writeArtifact(
      "browser",
      "browser.text",
      `browser-text-${record.id}`,
      "txt",
      full,
      `The readable text of ${page.url}.`
    )
    return { lines, snapshot, page, refCount: undefined, artifact } satisfies ReadMaterial
  })

/** A later page of the snapshot: from the stored one, so every line is shown exactly once across pages. */
const readStored = (record: SessionRecord, given: string) =>
  Effect.gen(function* () {
    const store = yield* OwnStore
    if (record.latest === undefined || record.latest.snapshotId !== given) {
      return yield* Effect.fail(
        toolError(
          "SNAPSHOT_STALE",
          `Snapshot ${given.slice(0, 12)}… is not the latest of session ${record.id}${record.latest === undefined ? "" : ` (that is ${record.latest.snapshotId.slice(0, 12)}…)`}: the page was read or changed since. Read again from offset 0 without a snapshot.`,
          { snapshot: given, ...defined({ current: record.latest?.snapshotId }) }
        )
      )
    }
    const latest = record.latest
    const snapshot = latest.snapshotId
    const lines = yield* snapshotLines(record.id, snapshot)
    // The record carries the text's hash and size; for one written before it did, they are worked out here.
    const digest =
      latest.sha256 !== undefined && latest.bytes !== undefined
        ? { sha256: latest.sha256, bytes: latest.bytes }
        : yield* textDigest(lines.length === 0 ? "" : `${lines.join("\n")}\n`)
    const artifact = snapshotArtifact(
      store.path(sessionPaths(record.id).snapshot(snapshot)),
      digest.sha256,
      digest.bytes,
      lines.length
    )
    yield* touchSession(record)
    return {
      lines,
      snapshot,
      page: { url: latest.url, title: latest.title },
      refCount: latest.refCount ?? Object.keys(latest.refs ?? {}).length,
      artifact
    } satisfies ReadMaterial
  })

/** The first page of the snapshot: a fresh one, made the session's latest. */
const readFresh = (record: SessionRecord, scoped: Scoped) =>
  Effect.map(
    takeSnapshot(record, scoped.scope, scoped.label),
    (taken) =>
      ({
        lines: taken.lines,
        snapshot: taken.snapshotId,
        page: taken.page,
        refCount: taken.record.latest!.refCount,
        artifact: taken.artifact
      }) satisfies ReadMaterial
  )

/** A PNG of the scope (or the full page), stored in the session and returned as an artifact. */
const takeScreenshot = (record: SessionRecord, scoped: Scoped, page: PageState) =>
  Effect.gen(function* () {
    const browser = yield* BrowserReads
    const store = yield* OwnStore
    const png = yield* browser.screenshot(record.endpoint, scoped.scope)
    const sha256 = yield* sha256Bytes(png)
    const rel = sessionPaths(record.id).screenshot(sha256.slice(0, 16))
    yield* store.writeBytes(rel, png)
    return {
      kind: "browser.screenshot",
      path: store.path(rel),
      sha256,
      bytes: png.length,
      description: `A PNG of ${scoped.label ?? "the full page"} at ${page.url}.`
    } satisfies Artifact
  })

/** The summary's sentence on the page's problems ("" when there were none). */
const eventNote = (events: PageEvents) =>
  events.totals.consoleErrors + events.totals.failedRequests + events.totals.dialogs === 0
    ? ""
    : ` The page reported ${events.totals.consoleErrors} console error(s), ${events.totals.failedRequests} failed request(s)${events.totals.dialogs === 0 ? "" : `, ${events.totals.dialogs} dialog(s) (dismissed)`}: see data.events.`

/** Everything a read's result is built from, beside the page of lines fitLines picks. */
interface ReadView {
  readonly input: ReadInput
  readonly record: SessionRecord
  readonly scoped: Scoped
  readonly material: ReadMaterial
  readonly artifacts: ReadonlyArray<Artifact>
  readonly events: PageEvents
  readonly offset: number
  readonly limit: number
  readonly maxChars: number
}

/** The read's result for `shown` lines from the offset (fitLines' build). */
const readResult =
  (view: ReadView) =>
  (text: string, shown: number, nextOffset: number | null, cut: boolean): ToolResult => {
    const { input, record, scoped, offset } = view
    const { lines, snapshot, page, refCount } = view.material
    const textMode = input.text === true
    const nextArgs: Record<string, unknown> = defined({
      action: "read",
      session_id: record.id,
      limit: input.limit,
      text: textMode ? true : undefined,
      selector: textMode ? input.selector : undefined,
      ref: textMode ? input.ref : undefined
    })
    const what = textMode ? "text" : scoped.label === undefined ? "snapshot" : `snapshot of ${scoped.label}`
    return {
      summary: [
        `${page.title === "" ? page.url : `"${page.title}" (${page.url})`}: ${what} lines ${shown === 0 ? "none" : `${offset + 1}-${offset + shown}`} of ${lines.length}${refCount === undefined ? "" : `, ${refCount} refs`} (snapshot ${snapshot.slice(0, 12)}…).`,
        cut
          ? `The page was cut to fit maxToolResultChars (${view.maxChars}); the full ${textMode ? "text" : "snapshot"} is the artifact.`
          : "",
        nextOffset === null
          ? "This is the last page (data.nextOffset is null)."
          : `Next page: workspace_browser ${JSON.stringify({ ...nextArgs, offset: nextOffset, snapshot })}.`,
        eventNote(view.events).trim()
      ]
        .filter((part) => part !== "")
        .join(" "),
      data: {
        sessionId: record.id,
        url: page.url,
        title: page.title,
        snapshot,
        ...(textMode ? { mode: "text" } : { mode: "snapshot", ...defined({ scope: scoped.label }) }),
        text,
        offset,
        limit: view.limit,
        returned: shown,
        totalLines: lines.length,
        nextOffset,
        ...defined({ refs: refCount }),
        events: view.events
      },
      artifacts: [...view.artifacts],
      retention: {
        importance: "normal",
        facts: [`browser ${record.id} at ${page.url.slice(0, 200)}: snapshot ${snapshot.slice(0, 16)}`],
        omit_when_summarizing: ["text"]
      }
    }
  }

/** read: a page of the snapshot (or of the page text), with events, artifacts and the next-page call. */
export const readPage = (
  input: ReadInput,
  refusal: (record: SessionRecord, ref: string) => Effect.Effect<never, ReturnType<typeof toolError>>
) =>
  Effect.gen(function* () {
    const settings = yield* CurrentSettings
    const offset = input.offset ?? 0
    const limit = input.limit ?? READ_DEFAULT_LIMIT
    yield* checkPaging(input, offset)
    const loaded = yield* loadOpenSession(input.session_id)
    // Only a read scoped to a ref needs the latest snapshot's refs.
    const record = input.ref === undefined ? loaded : yield* withRefs(loaded)
    // A page-events file that does not decode is refused before the page is read (nothing is written).
    yield* pageEvents(record.id)
    const scoped = yield* scopeOf(record, input)
    if (scoped === undefined) return yield* refusal(record, input.ref!)
    const material =
      input.text === true
        ? yield* readText(record, scoped, input.snapshot)
        : offset > 0
          ? yield* readStored(record, input.snapshot!)
          : yield* readFresh(record, scoped)
    if (offset > material.lines.length) {
      return yield* Effect.fail(
        toolError(
          "INVALID_INPUT",
          `field "offset" ${offset} is past the end: there are ${material.lines.length} lines. Use an offset from 0 to ${material.lines.length}.`,
          { field: "offset", total: material.lines.length }
        )
      )
    }
    const artifacts: Array<Artifact> = [material.artifact]
    if (input.screenshot === true) artifacts.push(yield* takeScreenshot(record, scoped, material.page))
    // Page content reaches the model: stageEgressAfterUntrustedRead treats this as it treats a research fetch.
    yield* markRead(material.page.url)
    const events = yield* pageEvents(record.id)
    const view = { input, record, scoped, material, artifacts, events, offset, limit }
    return yield* fitLines({
      operation: "browser.read",
      lines: material.lines,
      offset,
      limit,
      build: readResult({ ...view, maxChars: settings.maxToolResultChars })
    })
  })

/**
 * What workspace_browser shows: pages of snapshot (or text) lines fitted to maxToolResultChars, the
 * page's console errors and failed requests (bounded), and the summaries and retention of each action.
 */
import * as Effect from "effect/Effect"
import type { Artifact, ToolResult } from "../../protocol/envelope.ts"
import { type PageEvent, PageEventsSchema } from "../../services/browserFiles.ts"
import { CurrentSettings } from "../../services/CurrentSettings.ts"
import { StateReads } from "../../store/StateStore.ts"
import { envelopeChars } from "../inspect/budget.ts"
import { largestFitting } from "../inspect/paging.ts"
import { sessionPaths } from "./load.ts"

/** How many events of each group a read shows. */
export const EVENTS_SHOWN = 10

/**
 * The page's recent problems as a read shows them: console errors, failed requests, dialogs; bounded. They
 * come from events.json (core/services/browserFiles.ts), written by the host's browser supervisor and
 * decoded here: absent (no event yet) is no events; a file that is not JSON or does not decode is IO_ERROR
 * naming it (StateReads.readJson), never shown as given. Read and control check it before they touch the
 * page, so such a refusal changes nothing.
 */
export const pageEvents = (sessionId: string) =>
  Effect.gen(function* () {
    const store = yield* StateReads
    const raw = yield* store.readJson(sessionPaths(sessionId).events, PageEventsSchema)
    const events = raw?.events ?? []
    const totals = raw?.totals ?? {}
    const shown = (kinds: ReadonlyArray<PageEvent["kind"]>) =>
      events
        .filter((event) => kinds.includes(event.kind))
        .slice(-EVENTS_SHOWN)
        .map((event) => ({
          kind: event.kind,
          text: String(event.text).slice(0, 300),
          ...(event.url === undefined ? {} : { url: String(event.url).slice(0, 300) }),
          at: event.at
        }))
    const count = (kinds: ReadonlyArray<string>) => kinds.reduce((sum, kind) => sum + (Number(totals[kind]) || 0), 0)
    return {
      consoleErrors: shown(["console", "exception"]),
      failedRequests: shown(["request", "egress"]),
      dialogs: shown(["dialog"]),
      totals: {
        consoleErrors: count(["console", "exception"]),
        failedRequests: count(["request", "egress"]),
        dialogs: count(["dialog"])
      }
    }
  })

/** One page of lines to show. */
export interface LinePage {
  readonly operation: string
  readonly lines: ReadonlyArray<string>
  readonly offset: number
  readonly limit: number
  /** Builds the result for `shown` lines (text is the lines joined by "\n", each ending with "\n"). */
  readonly build: (text: string, shown: number, nextOffset: number | null, artifactNote: boolean) => ToolResult
}

/** The largest page of `limit` lines from `offset` that fits the budget; at least one line (clipped when alone too long). */
export const fitLines = (page: LinePage) =>
  Effect.gen(function* () {
    const settings = yield* CurrentSettings
    const total = page.lines.length
    const want = Math.max(0, Math.min(page.limit, total - page.offset))
    const textOf = (n: number) => (n === 0 ? "" : `${page.lines.slice(page.offset, page.offset + n).join("\n")}\n`)
    const resultOf = (n: number, text = textOf(n)) => {
      const end = page.offset + n
      return page.build(text, n, end >= total ? null : end, n < want)
    }
    const fits = (result: ToolResult) => envelopeChars(page.operation, result) <= settings.maxToolResultChars
    const shown = largestFitting(want, (n) => fits(resultOf(n)))
    if (shown >= 1 || want === 0) return resultOf(Math.max(0, shown))
    // Not even one line fits: its start is shown; the artifact has it whole.
    const line = textOf(1)
    const room = largestFitting(line.length, (n) => fits(resultOf(1, `${line.slice(0, n)}…\n`)))
    return resultOf(1, `${line.slice(0, Math.max(0, room))}…\n`)
  })

/** The snapshot artifact entry. */
export const snapshotArtifact = (path: string, sha256: string, bytes: number, lines: number): Artifact => ({
  kind: "browser.snapshot",
  path,
  sha256,
  bytes,
  description: `The full accessibility snapshot: ${lines} lines, with refs.`
})

/**
 * Budgeted pages: every paged result is cut to fit maxToolResultChars; when a page had to be cut, the
 * full result is written as an artifact under .agentic/artifacts/inspect/ and the envelope says how to
 * get the next page.
 */
import * as Effect from "effect/Effect"
import type { Artifact, ToolResult } from "../../protocol/envelope.ts"
import { type ToolError } from "../../protocol/errors.ts"
import { CurrentSettings } from "../../services/CurrentSettings.ts"
import { StateStore } from "../../store/StateStore.ts"
import { sha256Text } from "../../gate/hash.ts"
import { largestFitting, offsetPastEnd, resultChars } from "./paging.ts"

/** The part of maxToolResultChars left for summary and data once the envelope's own fields are paid for. */
export const dataBudget = (maxToolResultChars: number): number => maxToolResultChars - Math.min(1000, Math.floor(maxToolResultChars * 0.2))

/** Writes a full result as an artifact (content-addressed, so repeating a call reuses the file). */
export const writeArtifact = (kind: string, stem: string, extension: string, content: string, description: string) =>
  Effect.gen(function* () {
    const store = yield* StateStore
    const sha256 = yield* sha256Text(content)
    const rel = `artifacts/inspect/${stem}-${sha256.slice(0, 16)}.${extension}`
    const bytes = new TextEncoder().encode(content)
    yield* store.writeBytes(rel, bytes)
    return { kind, path: store.path(rel), sha256, bytes: bytes.length, description } satisfies Artifact
  })

/** The exact arguments of the call that fetches the next page. */
export const nextCall = (args: Record<string, unknown>, nextOffset: number | null, snapshot: string) =>
  nextOffset === null ? undefined : { tool: "workspace_inspect", arguments: { ...args, offset: nextOffset, snapshot } }

/** The sentence that tells a model how to continue. */
export const nextSentence = (args: Record<string, unknown>, nextOffset: number | null, snapshot: string): string =>
  nextOffset === null ? "This is the last page (data.nextOffset is null)." : `Next page: workspace_inspect ${JSON.stringify({ ...args, offset: nextOffset, snapshot })}.`

/** One paged listing (entries of list, find, search, overview). */
export interface PagedListing<E> {
  readonly action: string
  /** The call's arguments without offset and snapshot, for the next-page call. */
  readonly args: Record<string, unknown>
  /** The data key holding the page's entries ("entries", "matches"). */
  readonly key: string
  readonly all: ReadonlyArray<E>
  readonly offset: number
  readonly limit: number
  readonly snapshot: string
  readonly complete: boolean
  /** Extra data fields beside the paging ones. */
  readonly extra: Record<string, unknown>
  /** The first sentence of the summary for a page of `shown` items from `offset` of `total`. */
  readonly headline: (shown: number, total: number) => string
  /** An entry made smaller so that at least one fits (search drops context); identity by default. */
  readonly shrink?: (entry: E) => E
  /** Turns the page's entries into what data shows (e.g. adding sizes). */
  readonly present?: (entries: ReadonlyArray<E>) => Effect.Effect<ReadonlyArray<unknown>, ToolError, any>
  readonly retention: ToolResult["retention"]
  readonly unit: string
}

/** Builds the result of one page: fitted to the budget, with an artifact when it had to be cut. */
export const pagedListing = <E>(listing: PagedListing<E>) =>
  Effect.gen(function* () {
    const settings = yield* CurrentSettings
    const budget = dataBudget(settings.maxToolResultChars)
    const total = listing.all.length
    if (listing.offset > total) return yield* Effect.fail(offsetPastEnd(listing.offset, total, listing.unit))
    const want = Math.min(listing.limit, total - listing.offset)
    const render = (items: ReadonlyArray<unknown>, shown: number) => {
      const end = listing.offset + shown
      const nextOffset = end >= total ? null : end
      const cut = shown < want
      const summary = [
        listing.headline(shown, total),
        cut ? `The page was cut to ${shown} ${listing.unit} to fit maxToolResultChars (${settings.maxToolResultChars}); the full result is in the artifact.` : "",
        nextSentence(listing.args, nextOffset, listing.snapshot)
      ]
        .filter((part) => part !== "")
        .join(" ")
      const next = nextCall(listing.args, nextOffset, listing.snapshot)
      const data = {
        [listing.key]: items,
        ...listing.extra,
        offset: listing.offset,
        limit: listing.limit,
        returned: shown,
        total,
        nextOffset,
        complete: listing.complete,
        snapshot: listing.snapshot,
        ...(next === undefined ? {} : { next })
      }
      return { summary, data, cut }
    }
    const present = listing.present ?? ((entries: ReadonlyArray<E>) => Effect.succeed(entries as ReadonlyArray<unknown>))
    // Measure with the entries as they will be shown: present the whole wanted page once (it is at most `limit`).
    const wanted = listing.all.slice(listing.offset, listing.offset + want)
    const shownAll = yield* present(wanted)
    let shown = largestFitting(want, (n) => {
      const { summary, data } = render(shownAll.slice(0, n), n)
      return resultChars(summary, data) <= budget
    })
    let items: ReadonlyArray<unknown>
    if (shown < 1 && want > 0) {
      shown = 1
      const small = listing.shrink === undefined ? wanted[0]! : listing.shrink(wanted[0]!)
      items = yield* present([small])
    } else {
      shown = Math.max(shown, 0)
      items = shownAll.slice(0, shown)
    }
    const { summary, data, cut } = render(items, shown)
    const artifacts: Array<Artifact> = []
    if (cut) {
      const full = JSON.stringify({ action: listing.action, arguments: listing.args, snapshot: listing.snapshot, complete: listing.complete, total, [listing.key]: listing.all }, null, 1)
      artifacts.push(
        yield* writeArtifact(
          `inspect.${listing.action}`,
          listing.action,
          "json",
          full,
          `The full ${listing.action} result: all ${total} ${listing.unit}, as JSON.`
        )
      )
    }
    return {
      summary: artifacts.length === 0 ? summary : `${summary} Full result: ${artifacts[0]!.path}.`,
      data,
      ...(artifacts.length === 0 ? {} : { artifacts }),
      ...(listing.retention === undefined ? {} : { retention: listing.retention })
    } satisfies ToolResult
  })

/**
 * Budgeted pages: every paged result is cut to fit maxToolResultChars; when a page had to be cut, the
 * full result is written as an artifact under .agentic/artifacts/inspect/ and the envelope says how to
 * get the next page.
 */
import * as Effect from "effect/Effect"
import type { Artifact, ToolResult } from "../../protocol/envelope.ts"
import type { ToolError } from "../../protocol/errors.ts"
import { CurrentSettings } from "../../services/CurrentSettings.ts"
import { defined } from "../../text/defined.ts"
import { StateReads } from "../../store/StateStore.ts"
import type { ReadContext } from "../Tool.ts"
import {
  envelopeChars,
  largestFitting,
  placeholderArtifact as placeholderOf,
  writeArtifact as writeArtifactOf
} from "../fit.ts"
import { offsetPastEnd } from "./paging.ts"

export { envelopeChars } from "../fit.ts"

/** An artifact entry as long as the real one will be, under .agentic/artifacts/inspect/. */
export const placeholderArtifact = (kind: string, stem: string, extension: string, description: string): Artifact =>
  placeholderOf("inspect", kind, stem, extension, description)

/** Writes a full result as an artifact under .agentic/artifacts/inspect/ (content-addressed). */
export const writeArtifact = (kind: string, stem: string, extension: string, content: string, description: string) =>
  writeArtifactOf("inspect", kind, stem, extension, content, description)

/** The sentence that tells a model how to continue. */
export const nextSentence = (args: Record<string, unknown>, nextOffset: number | null, snapshot: string): string =>
  nextOffset === null
    ? "This is the last page (data.nextOffset is null)."
    : `Next page: workspace_inspect ${JSON.stringify({ ...args, offset: nextOffset, snapshot })}.`

/** One paged listing (entries of list, find, search, overview). */
export interface PagedListing<E> {
  readonly action: string
  /** The call's arguments without offset and snapshot, for the next-page call. */
  readonly args: Record<string, unknown>
  /** The data key holding the page's entries ("entries", "matches"). */
  readonly key: string
  readonly all: ReadonlyArray<E>
  /** `JSON.stringify(all)` when the caller already made it (the artifact then reuses it). */
  readonly allJson?: string
  readonly offset: number
  readonly limit: number
  readonly snapshot: string
  /**
   * The snapshot of a page ending at `end` (list: the hash of the entries up to the page's end), when a page's
   * snapshot is not `snapshot`; `snapshot` then names the artifact of a cut page and stands in for the page's
   * own (of the same length) while the page is fitted.
   */
  readonly snapshotAt?: (end: number) => Effect.Effect<string>
  readonly complete: boolean
  /** Extra data fields beside the paging ones. */
  readonly extra: Record<string, unknown>
  /** The first sentence of the summary for a page of `shown` items from `offset` of `total`. */
  readonly headline: (shown: number, total: number) => string
  /** An entry made smaller so that at least one fits (search drops context); identity by default. */
  readonly shrink?: (entry: E) => E
  /** Turns the page's entries into what data shows (e.g. adding sizes). */
  readonly present?: (entries: ReadonlyArray<E>) => Effect.Effect<ReadonlyArray<unknown>, ToolError, ReadContext>
  readonly retention: ToolResult["retention"]
  readonly unit: string
}

/** The artifacts of the last listings written (their head, without the entries, to the entry): a few, small. */
const written = new Map<string, Artifact>()
const WRITTEN_KEPT = 32

/** What one page shows: its presented entries, how many, the artifact of a cut page, and its snapshot. */
interface PageView {
  readonly items: ReadonlyArray<unknown>
  readonly shown: number
  readonly artifact: Artifact | undefined
  readonly snapshot: string
}

/** The envelope of one page of `listing` (of `total` entries), as fitted into `maxChars`. */
const pageEnvelope = <E>(listing: PagedListing<E>, maxChars: number, total: number, page: PageView): ToolResult => {
  const { items, shown, artifact, snapshot } = page
  const end = listing.offset + shown
  const nextOffset = end >= total ? null : end
  const summary = [
    listing.headline(shown, total),
    artifact === undefined
      ? ""
      : `The page was cut to ${shown} ${listing.unit} to fit maxToolResultChars (${maxChars}); the full result is in ${artifact.path}.`,
    nextSentence(listing.args, nextOffset, snapshot)
  ]
    .filter((part) => part !== "")
    .join(" ")
  const data = {
    [listing.key]: items,
    ...listing.extra,
    offset: listing.offset,
    limit: listing.limit,
    returned: shown,
    total,
    nextOffset,
    complete: listing.complete,
    snapshot
  }
  return {
    summary,
    data,
    ...defined({ artifacts: artifact === undefined ? undefined : [artifact], retention: listing.retention })
  }
}

/**
 * The wanted page (at most `limit` entries from the offset), presented once, cut to as many entries as fit
 * `maxChars` (measured with `placeholder` standing in for the artifact of a cut page); when not even one
 * fits, the first one made smaller (the artifact keeps it whole).
 */
const fitPage = <E>(listing: PagedListing<E>, maxChars: number, total: number, want: number, placeholder: Artifact) =>
  Effect.gen(function* () {
    const operation = `inspect.${listing.action}`
    const present = listing.present ?? ((entries: ReadonlyArray<E>) => Effect.succeed<ReadonlyArray<unknown>>(entries))
    const wanted = listing.all.slice(listing.offset, listing.offset + want)
    const shownAll = yield* present(wanted)
    const fits = (n: number) => {
      const artifact = n < want ? placeholder : undefined
      const page = { items: shownAll.slice(0, n), shown: n, artifact, snapshot: listing.snapshot }
      return envelopeChars(operation, pageEnvelope(listing, maxChars, total, page)) <= maxChars
    }
    const shown = Math.max(largestFitting(want, fits), 0)
    if (shown < 1 && want > 0) {
      const first = listing.shrink === undefined ? wanted[0]! : listing.shrink(wanted[0]!)
      return { shown: 1, items: yield* present([first]) }
    }
    return { shown, items: shownAll.slice(0, shown) }
  })

/**
 * The artifact of a cut page: the whole listing as JSON, with its head (action, arguments, snapshot,
 * completeness, total). A listing whose entries' JSON the caller made reuses that JSON, and a listing
 * already written (the next page, a repeated call) reuses its file while it is still there.
 */
const listingArtifact = <E>(listing: PagedListing<E>, total: number, description: string) =>
  Effect.gen(function* () {
    const kind = `inspect.${listing.action}`
    const head = {
      action: listing.action,
      arguments: listing.args,
      snapshot: listing.snapshot,
      complete: listing.complete,
      total
    }
    if (listing.allJson === undefined) {
      const full = JSON.stringify({ ...head, [listing.key]: listing.all })
      return yield* writeArtifact(kind, listing.action, "json", full, description)
    }
    // The same text as JSON.stringify({ ...head, [key]: all }), the entries' JSON reused. The snapshot in
    // `head` is the hash of that JSON, so `head` names the artifact's bytes: a page of a listing already
    // written (the next page, a repeated call) reuses the file without encoding and hashing them again.
    const headJson = JSON.stringify(head)
    const store = yield* StateReads
    const known = written.get(headJson)
    if (known !== undefined) {
      const on = yield* Effect.orElseSucceed(store.stat(known.path.slice(".agentic/".length)), () => undefined)
      if (on?.size === known.bytes) return known
    }
    const full = `${headJson.slice(0, -1)},${JSON.stringify(listing.key)}:${listing.allJson}}`
    const artifact = yield* writeArtifact(kind, listing.action, "json", full, description)
    written.delete(headJson)
    written.set(headJson, artifact)
    if (written.size > WRITTEN_KEPT) written.delete(written.keys().next().value!)
    return artifact
  })

/** Builds the result of one page: fitted to maxToolResultChars, with an artifact when it had to be cut. */
export const pagedListing = <E>(listing: PagedListing<E>) =>
  Effect.gen(function* () {
    const maxChars = (yield* CurrentSettings).maxToolResultChars
    const total = listing.all.length
    if (listing.offset > total) return yield* Effect.fail(offsetPastEnd(listing.offset, total, listing.unit))
    const want = Math.min(listing.limit, total - listing.offset)
    const description = `The full ${listing.action} result: all ${total} ${listing.unit}, as JSON.`
    const placeholder = placeholderArtifact(`inspect.${listing.action}`, listing.action, "json", description)
    const { items, shown } = yield* fitPage(listing, maxChars, total, want, placeholder)
    const snapshot =
      listing.snapshotAt === undefined ? listing.snapshot : yield* listing.snapshotAt(listing.offset + shown)
    const artifact = shown >= want ? undefined : yield* listingArtifact(listing, total, description)
    return pageEnvelope(listing, maxChars, total, { items, shown, artifact, snapshot })
  })

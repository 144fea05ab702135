/** workspace_inspect list, overview (the tree listing) and find (glob). */
import * as Effect from "effect/Effect"
import { Search } from "../../services/Search.ts"
import { GlobSet } from "../../services/searchCore.ts"
import { defined } from "../../text/defined.ts"
import { pagedListing } from "./budget.ts"
import { requireSnapshot } from "./paging.ts"
import { LIST_DEFAULT_LIMIT } from "./schema.ts"
import { walkScope } from "./scope.ts"
import { checkSnapshot, directoryOf, fail, plural, snapshotOfJson, withSizes } from "./common.ts"

/** At most this many entries are enumerated by one listing; more makes the listing incomplete. */
export const WALK_CAP = 200_000
/** The input of list and overview. */
interface ListInput {
  readonly path?: string | undefined
  readonly depth?: number | undefined
  readonly include_ignored?: boolean | undefined
  readonly exclude?: ReadonlyArray<string> | undefined
  readonly offset?: number | undefined
  readonly limit?: number | undefined
  readonly snapshot?: string | undefined
}

/** The next-page call's arguments of a list or overview (without offset and snapshot). */
const listArgs = (action: "list" | "overview", input: ListInput) => ({
  action,
  ...defined({
    path: input.path,
    depth: input.depth,
    include_ignored: input.include_ignored,
    exclude: input.exclude,
    limit: input.limit
  })
})

/** What a list or overview page's headline says beside the page's own counts. */
interface ListFacts {
  readonly action: "list" | "overview"
  readonly base: string
  readonly depth: number
  readonly offset: number
  /** The first page's walk stopped once the page was full: its total is a lower bound. */
  readonly stopped: boolean
  readonly complete: boolean
  readonly extraFacts: ReadonlyArray<string>
}

/** The first sentence of a list or overview page's summary, for `shown` entries of `total`. */
const listHeadline =
  ({ action, base, depth, offset, stopped, complete, extraFacts }: ListFacts) =>
  (shown: number, total: number) => {
    const where = base === "" ? "the workspace root" : `"${base}"`
    const count = stopped
      ? `more than ${total - 1} entries (the walk stopped once this page was full; page on for the rest)`
      : `${plural(total, "entry", "entries")}${
          complete ? "" : " (incomplete: the enumeration stopped early or some directories were unreadable)"
        }`
    return `${action === "overview" ? "Overview of" : "Listing of"} ${where} (depth ${depth}): ${count}, showing ${shown} from offset ${offset}.${
      extraFacts.length === 0 ? "" : ` ${extraFacts.join(" ")}`
    }`
  }

/** The tree listing shared by list and overview. */
export const listing = (
  action: "list" | "overview",
  input: ListInput,
  defaultDepth: number,
  extra: Record<string, unknown>,
  extraFacts: ReadonlyArray<string>
) =>
  Effect.gen(function* () {
    const missing = requireSnapshot(input, action)
    if (missing !== undefined) return yield* fail(missing)
    const base = yield* directoryOf(input.path, action)
    const scope = yield* walkScope(base, input)
    const search = yield* Search
    const depth = input.depth ?? defaultDepth
    const offset = input.offset ?? 0
    const limit = input.limit ?? LIST_DEFAULT_LIMIT
    // The first page stops the walk once it is full: one entry past the page's end says whether there is a
    // next page, and nothing after it is enumerated (docs/INSPECT.md "A first page walks no further than
    // itself"). A later page walks the whole listing, as it checks and names it.
    const cap = offset === 0 ? Math.min(WALK_CAP, limit + 1) : WALK_CAP
    const walked = yield* search.walk({ ...scope, maxDepth: depth, directories: true, maxEntries: cap })
    const stopped = cap < WALK_CAP && !walked.complete && walked.entries.length >= cap
    const query = {
      action: "list",
      base,
      depth,
      includeIgnored: scope.includeIgnored,
      excludes: scope.excludes
    }
    // The entries' JSON is made once: for the snapshot and for the artifact of a cut page.
    const allJson = JSON.stringify(walked.entries)
    // The first page's snapshot names the entries up to its end (the hash of that prefix: its walk has nothing
    // after it to hash), and the next page accepts it while those entries are still the same: the page a model
    // holds is then exactly the first page of the listing as it is now. A later page's snapshot is the whole
    // listing's, as before, and the page after it accepts either. `enumerated` (the hash of every entry walked)
    // names the artifact of a cut page.
    const enumerated = yield* snapshotOfJson(query, allJson)
    // A page that reaches the end of what was walked names the same entries as `enumerated`: not hashed again.
    const prefixSnapshot = (end: number) =>
      end >= walked.entries.length
        ? Effect.succeed(enumerated)
        : snapshotOfJson(query, JSON.stringify(walked.entries.slice(0, end)))
    // At offset 0 no page is held, so there is nothing to check.
    if (input.snapshot !== undefined && offset > 0 && input.snapshot !== enumerated)
      yield* checkSnapshot(action, input.snapshot, yield* prefixSnapshot(offset), `The listing of "${base || "."}"`)
    return yield* pagedListing({
      action,
      args: listArgs(action, input),
      key: "entries",
      all: walked.entries,
      allJson,
      offset,
      limit,
      snapshot: enumerated,
      ...(offset === 0 ? { snapshotAt: prefixSnapshot } : {}),
      complete: walked.complete,
      extra: {
        path: base,
        depth,
        ...(stopped ? { totalIsLowerBound: true } : {}),
        ...(scope.namedHidden ? { hiddenByDefault: true } : {}),
        ...(walked.unreadable.length === 0 ? {} : { unreadable: walked.unreadable.slice(0, 20) }),
        ...extra
      },
      headline: listHeadline({ action, base, depth, offset, stopped, complete: walked.complete, extraFacts }),
      present: withSizes,
      retention: { importance: "normal", omit_when_summarizing: ["entries"], facts: [...extraFacts] },
      unit: "entries"
    })
  })

export const findPaths = (input: {
  readonly pattern: string
  readonly path?: string | undefined
  readonly type?: "file" | "directory" | "any" | undefined
  readonly include_ignored?: boolean | undefined
  readonly exclude?: ReadonlyArray<string> | undefined
  readonly offset?: number | undefined
  readonly limit?: number | undefined
  readonly snapshot?: string | undefined
}) =>
  Effect.gen(function* () {
    const missing = requireSnapshot(input, "find")
    if (missing !== undefined) return yield* fail(missing)
    const base = yield* directoryOf(input.path, "find")
    const scope = yield* walkScope(base, input)
    const search = yield* Search
    const type = input.type ?? "any"
    const walked = yield* search.walk({ ...scope, directories: type !== "file", maxEntries: WALK_CAP })
    const glob = new GlobSet([input.pattern])
    const found = walked.entries.filter(
      (entry) =>
        glob.matches(entry.path) &&
        (type === "any" || (type === "file" ? entry.type !== "directory" : entry.type === "directory"))
    )
    const allJson = JSON.stringify(found)
    const snapshot = yield* snapshotOfJson(
      {
        action: "find",
        pattern: input.pattern,
        base,
        type,
        includeIgnored: scope.includeIgnored,
        excludes: scope.excludes
      },
      allJson
    )
    yield* checkSnapshot("find", input.snapshot, snapshot, "The find result")
    const args = {
      action: "find",
      pattern: input.pattern,
      ...defined({
        path: input.path,
        type: input.type,
        include_ignored: input.include_ignored,
        exclude: input.exclude,
        limit: input.limit
      })
    }
    return yield* pagedListing({
      action: "find",
      args,
      key: "entries",
      all: found,
      allJson,
      offset: input.offset ?? 0,
      limit: input.limit ?? LIST_DEFAULT_LIMIT,
      snapshot,
      complete: walked.complete,
      extra: { pattern: input.pattern, path: base },
      headline: (shown, count) =>
        `${plural(count, "path")} match ${JSON.stringify(input.pattern)} under ${base === "" ? "the workspace root" : `"${base}"`}${
          walked.complete ? "" : " (incomplete enumeration)"
        }. Showing ${shown} from offset ${input.offset ?? 0}.`,
      present: withSizes,
      retention: { importance: "normal", omit_when_summarizing: ["entries"] },
      unit: "entries"
    })
  })

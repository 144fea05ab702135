/** workspace_inspect list, overview (the tree listing) and find (glob). */
import * as Effect from "effect/Effect"
import { Search } from "../../services/Search.ts"
import { GlobSet } from "../../services/searchCore.ts"
import { pagedListing } from "./budget.ts"
import { requireSnapshot } from "./paging.ts"
import { LIST_DEFAULT_LIMIT } from "./schema.ts"
import { walkScope } from "./scope.ts"
import { checkSnapshot, directoryOf, fail, plural, snapshotOfJson, withSizes } from "./common.ts"

/** At most this many entries are enumerated by one listing; more makes the listing incomplete. */
export const WALK_CAP = 200_000
/** The tree listing shared by list and overview. */
export const listing = (
  action: "list" | "overview",
  input: {
    readonly path?: string | undefined
    readonly depth?: number | undefined
    readonly include_ignored?: boolean | undefined
    readonly exclude?: ReadonlyArray<string> | undefined
    readonly offset?: number | undefined
    readonly limit?: number | undefined
    readonly snapshot?: string | undefined
  },
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
    const walked = yield* search.walk({ ...scope, maxDepth: depth, directories: true, maxEntries: WALK_CAP })
    const args = {
      action,
      ...(input.path === undefined ? {} : { path: input.path }),
      ...(input.depth === undefined ? {} : { depth: input.depth }),
      ...(input.include_ignored === undefined ? {} : { include_ignored: input.include_ignored }),
      ...(input.exclude === undefined ? {} : { exclude: input.exclude }),
      ...(input.limit === undefined ? {} : { limit: input.limit })
    }
    // The entries' JSON is made once: for the snapshot and for the artifact of a cut page.
    const allJson = JSON.stringify(walked.entries)
    const snapshot = yield* snapshotOfJson(
      {
        action: "list",
        base,
        depth,
        includeIgnored: scope.includeIgnored,
        excludes: scope.excludes
      },
      allJson
    )
    yield* checkSnapshot(action, input.snapshot, snapshot, `The listing of "${base || "."}"`)
    const where = base === "" ? "the workspace root" : `"${base}"`
    return yield* pagedListing({
      action,
      args,
      key: "entries",
      all: walked.entries,
      allJson,
      offset: input.offset ?? 0,
      limit: input.limit ?? LIST_DEFAULT_LIMIT,
      snapshot,
      complete: walked.complete,
      extra: {
        path: base,
        depth,
        ...(scope.namedHidden ? { hiddenByDefault: true } : {}),
        ...(walked.unreadable.length === 0 ? {} : { unreadable: walked.unreadable.slice(0, 20) }),
        ...extra
      },
      headline: (shown, total) =>
        `${action === "overview" ? "Overview of" : "Listing of"} ${where} (depth ${depth}): ${plural(total, "entry", "entries")}${
          walked.complete ? "" : " (incomplete: the enumeration stopped early or some directories were unreadable)"
        }, showing ${shown} from offset ${input.offset ?? 0}.${extraFacts.length === 0 ? "" : ` ${extraFacts.join(" ")}`}`,
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
      ...(input.path === undefined ? {} : { path: input.path }),
      ...(input.type === undefined ? {} : { type: input.type }),
      ...(input.include_ignored === undefined ? {} : { include_ignored: input.include_ignored }),
      ...(input.exclude === undefined ? {} : { exclude: input.exclude }),
      ...(input.limit === undefined ? {} : { limit: input.limit })
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

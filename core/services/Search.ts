/**
 * The narrow port behind fast listing and searching: candidate files of a subtree honouring .gitignore
 * and excludes, and a line search over them with a result cap. Hosts implement it for speed (Node: git
 * ls-files and worker threads); `layerHostFs` is the host-free fallback over HostFs for any other host.
 * Paths in and out are workspace-relative and already confined; results are sorted by path.
 *
 * @example
 *   const search = yield* Search
 *   const { entries } = yield* search.walk({ base: "src", includeIgnored: false, excludes: [], directories: true, maxEntries: 10_000 })
 *   const found = yield* search.grep({ base: "", source: "TODO", flags: "m", literal: "TODO", ...rest })
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { toolError, type ToolError } from "../protocol/errors.ts"
import { type DirEntry, HostFs, type HostFsShape, HostInfo } from "./HostFs.ts"
import { join } from "./paths.ts"
import { byPath, GlobSet, grepText, IgnoreStack, isBinary, isPrunedDir, type LineMatch } from "./searchCore.ts"

/** What a walk visits. `maxDepth` counts levels below `base` (1 = its direct children). */
export interface WalkOptions {
  /** Workspace-relative directory ("" = the root), already resolved. */
  readonly base: string
  /** true lists what .gitignore hides too (.git/ is never descended into). */
  readonly includeIgnored: boolean
  /** Globs (configured and per call) that exclude a path and everything under it. */
  readonly excludes: ReadonlyArray<string>
  readonly maxDepth?: number
  /** Report directories as entries too (listings), not only files (search). */
  readonly directories: boolean
  /** Stop after this many entries; the result then says complete: false. */
  readonly maxEntries: number
}

/** One walked entry. Symlinks are reported, never followed. */
export interface WalkEntry {
  readonly path: string
  readonly type: DirEntry["type"]
}

/** A walk's entries sorted by path, whether the enumeration finished, and what could not be read. */
export interface WalkResult {
  readonly entries: ReadonlyArray<WalkEntry>
  readonly complete: boolean
  readonly unreadable: ReadonlyArray<string>
}

/** A line search over the files a walk would yield. */
export interface GrepOptions extends Omit<WalkOptions, "directories" | "maxEntries" | "maxDepth"> {
  /** File globs a path must match (any of them); empty = every file. */
  readonly include: ReadonlyArray<string>
  /** JavaScript RegExp source and flags (non-global; "m", plus "i" for case-insensitive). */
  readonly source: string
  readonly flags: string
  /** Text every match contains (the query when literal, `requiredLiteral` of a regex): a host may skip files without it. */
  readonly literal?: string
  readonly context: number
  /** The result cap: the search stops once this many matching lines (in path order) are known. */
  readonly maxMatches: number
  /** Longer lines are clipped around the match. */
  readonly maxLineChars: number
  /** Larger files are skipped and reported. */
  readonly maxFileBytes: number
}

/** One matching line with its file. */
export interface GrepMatch extends LineMatch {
  readonly path: string
}

/** The matches in (path, line) order, capped at maxMatches, and what was skipped. */
export interface GrepResult {
  readonly matches: ReadonlyArray<GrepMatch>
  /** true when the cap stopped the search before every file was searched. */
  readonly capped: boolean
  readonly filesSearched: number
  readonly binarySkipped: number
  readonly tooLarge: ReadonlyArray<string>
  readonly unreadable: ReadonlyArray<string>
}

/** The search port. */
export interface SearchShape {
  readonly walk: (options: WalkOptions) => Effect.Effect<WalkResult, ToolError>
  readonly grep: (options: GrepOptions) => Effect.Effect<GrepResult, ToolError>
}

/** The search service. */
export class Search extends Context.Tag("agentic-workspace/Search")<Search, SearchShape>() {
  /** The host-free implementation over HostFs (sequential reads; hosts with threads provide a faster one). */
  static readonly layerHostFs = Layer.effect(
    Search,
    Effect.gen(function* () {
      const host = yield* HostFs
      const info = yield* HostInfo
      return makeHostFsSearch(host, info.root)
    })
  )
}

const decoder = new TextDecoder()

/** Reads a directory's .gitignore text, or undefined. */
const gitignoreOf = (host: HostFsShape, root: string, dir: string) =>
  host.readFile(join(root, dir === "" ? ".gitignore" : `${dir}/.gitignore`)).pipe(
    Effect.map((bytes): string | undefined => decoder.decode(bytes)),
    Effect.orElseSucceed(() => undefined)
  )

/** The ignore rules in force at `base`: the .gitignore of the root and of every directory down to it. */
export const ignoreStackAt = (
  readGitignore: (dir: string) => Effect.Effect<string | undefined>,
  base: string
): Effect.Effect<IgnoreStack> =>
  Effect.gen(function* () {
    let stack = IgnoreStack.empty.with("", yield* readGitignore(""))
    const parts = base === "" ? [] : base.split("/")
    for (let index = 1; index <= parts.length; index++) {
      const dir = parts.slice(0, index).join("/")
      stack = stack.with(dir, yield* readGitignore(dir))
    }
    return stack
  })

/**
 * The walk every host can run: depth-first over `readDir`, one .gitignore matcher per directory that
 * has one, excluded and ignored directories pruned before they are read.
 */
export const walkTree = (
  readDir: (rel: string) => Effect.Effect<ReadonlyArray<DirEntry> | undefined>,
  readGitignore: (dir: string) => Effect.Effect<string | undefined>,
  options: WalkOptions
): Effect.Effect<WalkResult> =>
  Effect.gen(function* () {
    const excludes = new GlobSet(options.excludes)
    const entries: Array<WalkEntry> = []
    const unreadable: Array<string> = []
    let complete = true
    const stackAtBase = options.includeIgnored ? IgnoreStack.empty : yield* ignoreStackAt(readGitignore, options.base)
    const pending: Array<{ readonly dir: string; readonly depth: number; readonly stack: IgnoreStack }> = [
      { dir: options.base, depth: 0, stack: stackAtBase }
    ]
    while (pending.length > 0 && complete) {
      const { dir, depth, stack: parentStack } = pending.pop()!
      const listed = yield* readDir(dir)
      if (listed === undefined) {
        unreadable.push(dir)
        continue
      }
      const stack =
        options.includeIgnored || dir === options.base ? parentStack : parentStack.with(dir, yield* readGitignore(dir))
      const children = [...listed].sort((a, b) => byPath(b.name, a.name))
      for (const child of children) {
        const rel = dir === "" ? child.name : `${dir}/${child.name}`
        const isDirectory = child.type === "directory"
        if (isDirectory && isPrunedDir(rel, options.base)) continue
        if (!excludes.isEmpty && excludes.matches(rel)) continue
        if (!options.includeIgnored && stack.ignores(rel, isDirectory)) continue
        if (isDirectory) {
          if (options.directories) entries.push({ path: rel, type: child.type })
          if (options.maxDepth === undefined || depth + 1 < options.maxDepth) pending.push({ dir: rel, depth: depth + 1, stack })
        } else entries.push({ path: rel, type: child.type })
        if (entries.length > options.maxEntries) {
          complete = false
          break
        }
      }
    }
    entries.sort((a, b) => byPath(a.path, b.path))
    return { entries: complete ? entries : entries.slice(0, options.maxEntries), complete: complete && unreadable.length === 0, unreadable }
  })

/** Compiles the search's RegExp (the caller validated it already; an invalid one is a defect here). */
export const compileGrep = (options: Pick<GrepOptions, "source" | "flags">): RegExp => new RegExp(options.source, options.flags)

/** The host-free search over HostFs. */
export const makeHostFsSearch = (host: HostFsShape, root: string): SearchShape => {
  const readDir = (rel: string) =>
    host.readDir(join(root, rel)).pipe(
      Effect.map((entries): ReadonlyArray<DirEntry> | undefined => entries),
      Effect.orElseSucceed(() => undefined)
    )
  const readGitignore = (dir: string) => gitignoreOf(host, root, dir)
  const walk = (options: WalkOptions) => walkTree(readDir, readGitignore, options)
  return {
    walk,
    grep: (options) =>
      Effect.gen(function* () {
        const walked = yield* walk({ ...options, directories: false, maxEntries: Number.MAX_SAFE_INTEGER })
        const include = new GlobSet(options.include)
        const regex = compileGrep(options)
        const matches: Array<GrepMatch> = []
        const tooLarge: Array<string> = []
        const unreadable: Array<string> = [...walked.unreadable]
        let filesSearched = 0
        let binarySkipped = 0
        let capped = false
        for (const entry of walked.entries) {
          if (entry.type !== "file") continue
          if (!include.isEmpty && !include.matches(entry.path)) continue
          if (matches.length >= options.maxMatches) {
            capped = true
            break
          }
          const info = yield* Effect.orElseSucceed(host.stat(join(root, entry.path)), () => undefined)
          if (info !== undefined && info.size > options.maxFileBytes) {
            tooLarge.push(entry.path)
            continue
          }
          const bytes = yield* Effect.orElseSucceed(host.readFile(join(root, entry.path)), () => undefined)
          if (bytes === undefined) {
            unreadable.push(entry.path)
            continue
          }
          filesSearched++
          if (isBinary(bytes)) {
            binarySkipped++
            continue
          }
          for (const found of grepText(decoder.decode(bytes), regex, options.context, options.maxLineChars)) {
            matches.push({ path: entry.path, ...found })
          }
        }
        if (matches.length > options.maxMatches) {
          capped = true
          matches.length = options.maxMatches
        }
        return { matches, capped, filesSearched, binarySkipped, tooLarge, unreadable }
      })
  }
}

/** The failure of a search host (a worker crashed, git failed in an unexpected way). */
export const searchHostError = (reason: string) =>
  toolError("IO_ERROR", `The search could not finish (${reason}). Retry; if it persists, narrow the path.`, { reason })

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
import { IgnoreStack, ignoreStackAt, readGitignoreText } from "./gitignore.ts"
import { byPath, GlobSet, grepText, isBinary, type LineMatch } from "./searchCore.ts"
import { TreeWalk } from "./walk.ts"

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
  /**
   * The deadline in milliseconds (searchTimeoutMs). Past it the search stops, by terminating whatever runs
   * the regex, and answers what it found with `timedOut: true` and the files it did not search.
   */
  readonly timeoutMs?: number
}

/** A search of one given file's text (a file named directly), under the same deadline. */
export interface GrepTextOptions
  extends Pick<GrepOptions, "source" | "flags" | "context" | "maxLineChars" | "timeoutMs"> {
  readonly path: string
  readonly text: string
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
  /** true when the deadline stopped the search; `notSearched` then lists the files whose result is unknown. */
  readonly timedOut?: boolean
  readonly notSearched?: ReadonlyArray<string>
}

/** The search port. */
export interface SearchShape {
  readonly walk: (options: WalkOptions) => Effect.Effect<WalkResult, ToolError>
  readonly grep: (options: GrepOptions) => Effect.Effect<GrepResult, ToolError>
  /** The line search of one text, off the caller's thread where the host can, under the deadline. */
  readonly grepText: (options: GrepTextOptions) => Effect.Effect<GrepResult, ToolError>
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

export { ignoreStackAt } from "./gitignore.ts"

/**
 * The walk every host can run: depth-first over `readDir` in path order, one .gitignore matcher per
 * directory whose listing shows one, excluded and ignored directories pruned before they are read.
 */
export const walkTree = (
  readDir: (rel: string) => Effect.Effect<ReadonlyArray<DirEntry> | undefined>,
  readGitignore: (dir: string) => Effect.Effect<string | undefined>,
  options: WalkOptions
): Effect.Effect<WalkResult> =>
  Effect.gen(function* () {
    const stackAtBase = options.includeIgnored ? IgnoreStack.empty : yield* ignoreStackAt(readGitignore, options.base)
    const walk = new TreeWalk(options, [{ dir: options.base, depth: 0, stack: stackAtBase }])
    const entries: Array<WalkEntry> = []
    let complete = true
    for (;;) {
      const step = walk.step()
      if (step === undefined) break
      if ("path" in step) {
        entries.push(step)
        if (entries.length > options.maxEntries) {
          complete = false
          break
        }
        continue
      }
      const listed = yield* readDir(step.dir)
      walk.accept(
        step,
        listed,
        listed !== undefined && walk.wantsGitignore(step, listed) ? yield* readGitignore(step.dir) : undefined
      )
    }
    return finishWalk(entries, complete, walk.unreadable, options.maxEntries)
  })

/** A walk's result from its entries: sorted by path, cut to maxEntries when the walk stopped early. */
export const finishWalk = (
  entries: Array<WalkEntry>,
  complete: boolean,
  unreadable: ReadonlyArray<string>,
  maxEntries: number
): WalkResult => {
  const kept = complete ? entries : entries.slice(0, maxEntries)
  // The walk yields path order already; sort only what is not (a host's own order).
  let sorted = true
  for (let index = 1; index < kept.length && sorted; index++) sorted = kept[index - 1]!.path < kept[index]!.path
  if (!sorted) kept.sort((a, b) => byPath(a.path, b.path))
  return { entries: kept, complete: complete && unreadable.length === 0, unreadable }
}

/** What the fallback needs of a Web Worker (Deno and browsers have them; Node 20 has none as a global). */
interface WebWorker {
  postMessage: (message: unknown) => void
  terminate: () => void
  onmessage: ((event: { data: unknown }) => void) | null
  onerror: ((event: unknown) => void) | null
}

const webWorkerClass = (): (new (url: string, options: { type: "module" }) => WebWorker) | undefined =>
  (globalThis as { Worker?: new (url: string, options: { type: "module" }) => WebWorker }).Worker

/**
 * One text's line search under a deadline. Where the runtime has Web Workers (Deno), the regex runs in
 * a module worker (core/services/grepWorker.ts) that is terminated when the deadline passes, so no regex,
 * however catastrophic, holds the caller; elsewhere the search can only stop between lines (a single
 * catastrophic line then runs to its end: the window documented in docs/INSPECT.md).
 */
const makeTextGrep = () => {
  let worker: WebWorker | undefined
  const run = (
    job: { text: string; source: string; flags: string; context: number; maxLineChars: number },
    deadline: number
  ): Promise<ReadonlyArray<LineMatch> | "timeout"> => {
    const Worker = webWorkerClass()
    if (Worker === undefined) {
      const regex = new RegExp(job.source, job.flags)
      const found = grepText(job.text, regex, job.context, job.maxLineChars, () => Date.now() > deadline)
      return Promise.resolve(found === undefined ? "timeout" : found)
    }
    worker ??= new Worker(new URL("./grepWorker.ts", import.meta.url).href, { type: "module" })
    const current = worker
    return new Promise((resolve, reject) => {
      // No deadline, no timer: setTimeout clamps a delay past 2^31-1 ms (Infinity among them) to an
      // immediate one, which would report every search without a timeoutMs as timed out.
      const timer = Number.isFinite(deadline)
        ? setTimeout(
            () => {
              current.terminate()
              if (worker === current) worker = undefined
              resolve("timeout")
            },
            Math.max(0, deadline - Date.now())
          )
        : undefined
      current.onmessage = (event) => {
        clearTimeout(timer)
        resolve(event.data as ReadonlyArray<LineMatch>)
      }
      current.onerror = (event) => {
        clearTimeout(timer)
        current.terminate()
        if (worker === current) worker = undefined
        reject(new Error(String((event as { message?: string }).message ?? "the search worker failed")))
      }
      current.postMessage(job)
    })
  }
  return {
    run,
    close: () => {
      worker?.terminate()
      worker = undefined
    }
  }
}

/** One text's line search under a deadline: its matches, or "timeout" when the deadline passed first. */
type SearchText = (
  job: Parameters<ReturnType<typeof makeTextGrep>["run"]>[0],
  deadline: number
) => Effect.Effect<ReadonlyArray<LineMatch> | "timeout", ToolError>

/** Runs `use` with a text search of its own: one worker per search, terminated when it ends (an idle worker would keep a Deno process alive). */
const withTexts = <A, E, R>(use: (searchText: SearchText) => Effect.Effect<A, E, R>) =>
  Effect.acquireUseRelease(
    Effect.sync(makeTextGrep),
    (texts) =>
      use((job, deadline) =>
        Effect.tryPromise({
          try: () => texts.run(job, deadline),
          catch: (error) => searchHostError(error instanceof Error ? error.message : String(error))
        })
      ),
    (texts) => Effect.sync(texts.close)
  )

const deadlineOf = (timeoutMs: number | undefined) =>
  timeoutMs === undefined ? Number.POSITIVE_INFINITY : Date.now() + timeoutMs

/** The search of one given file's text, as a GrepResult of that one file. */
const grepOneText = (options: GrepTextOptions, searchText: SearchText) =>
  Effect.gen(function* () {
    const found = yield* searchText(options, deadlineOf(options.timeoutMs))
    const timedOut = found === "timeout"
    return {
      matches: timedOut ? [] : found.map((match) => ({ path: options.path, ...match })),
      capped: false,
      filesSearched: timedOut ? 0 : 1,
      binarySkipped: 0,
      tooLarge: [],
      unreadable: [],
      ...(timedOut ? { timedOut, notSearched: [options.path] } : {})
    }
  })

/**
 * The line search over the files `walk` yields under `options.base`, in path order: each read through
 * `host` and searched until the cap or the deadline; what is too large, unreadable or binary is reported.
 */
const grepFiles = (
  host: HostFsShape,
  root: string,
  walk: (options: WalkOptions) => Effect.Effect<WalkResult>,
  options: GrepOptions,
  searchText: SearchText
): Effect.Effect<GrepResult, ToolError> =>
  Effect.gen(function* () {
    const deadline = deadlineOf(options.timeoutMs)
    const walked = yield* walk({ ...options, directories: false, maxEntries: Number.MAX_SAFE_INTEGER })
    const include = new GlobSet(options.include)
    const matches: Array<GrepMatch> = []
    const tooLarge: Array<string> = []
    const unreadable: Array<string> = [...walked.unreadable]
    const notSearched: Array<string> = []
    let filesSearched = 0
    let binarySkipped = 0
    let capped = false
    let timedOut = false
    for (const entry of walked.entries) {
      if (entry.type !== "file") continue
      if (!include.isEmpty && !include.matches(entry.path)) continue
      if (timedOut || Date.now() > deadline) {
        timedOut = true
        notSearched.push(entry.path)
        continue
      }
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
      if (isBinary(bytes)) {
        filesSearched++
        binarySkipped++
        continue
      }
      const found = yield* searchText(
        {
          text: decoder.decode(bytes),
          source: options.source,
          flags: options.flags,
          context: options.context,
          maxLineChars: options.maxLineChars
        },
        deadline
      )
      if (found === "timeout") {
        timedOut = true
        notSearched.push(entry.path)
        continue
      }
      filesSearched++
      for (const match of found) matches.push({ path: entry.path, ...match })
    }
    if (matches.length > options.maxMatches) {
      capped = true
      matches.length = options.maxMatches
    }
    return {
      matches,
      capped,
      filesSearched,
      binarySkipped,
      tooLarge,
      unreadable,
      ...(timedOut ? { timedOut, notSearched } : {})
    }
  })

/** The host-free search over HostFs. */
export const makeHostFsSearch = (host: HostFsShape, root: string): SearchShape => {
  const readDir = (rel: string) =>
    host.readDir(join(root, rel)).pipe(
      Effect.map((entries): ReadonlyArray<DirEntry> | undefined => entries),
      Effect.orElseSucceed(() => undefined)
    )
  const readGitignore = (dir: string) => readGitignoreText(host, root, dir)
  const walk = (options: WalkOptions) => walkTree(readDir, readGitignore, options)
  return {
    walk,
    grepText: (options) => withTexts((searchText) => grepOneText(options, searchText)),
    grep: (options) => withTexts((searchText) => grepFiles(host, root, walk, options, searchText))
  }
}

/** The failure of a search host (a worker crashed, git failed in an unexpected way). */
export const searchHostError = (reason: string) =>
  toolError("IO_ERROR", `The search could not finish (${reason}). Retry; if it persists, narrow the path.`, { reason })

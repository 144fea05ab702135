/**
 * semantic_search: ranked retrieval of chunks for a natural-language query. It is lexical: MiniSearch's
 * BM25-style scoring over words (identifiers split at camelCase and snake_case, prefix and light fuzzy
 * matching), not embeddings — it finds chunks that share words with the query, not synonyms or concepts
 * the text never names. The index lives in .agentic/index/semantic.json and is updated incrementally:
 * a file is re-chunked only when its SHA-256 changed (size and mtime only decide whether to hash it).
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type { SearchResult } from "minisearch"
import type MiniSearchIndex from "minisearch"
import type { ToolResult } from "../../protocol/envelope.ts"
import { toolError } from "../../protocol/errors.ts"
import { CurrentSettings } from "../../services/CurrentSettings.ts"
import { HostReads, HostInfo } from "../../services/HostFs.ts"
import { dirname, join } from "../../services/paths.ts"
import { walkScope } from "./scope.ts"
import { Search } from "../../services/Search.ts"
import { GlobSet } from "../../services/searchCore.ts"
import { Workspace } from "../../services/Workspace.ts"
import { OwnStore, StateReads } from "../../store/StateStore.ts"
import { sha256Bytes } from "../../gate/hash.ts"
import { envelopeChars } from "./budget.ts"
import { describeBytes, largestFitting, numberLines } from "./paging.ts"

/** The index file under .agentic/. */
export const INDEX_FILE = "index/semantic.json"
/** Bumped when chunking or tokenising changes: an index of another version is rebuilt. */
export const INDEX_VERSION = 1
/** Lines per chunk, and how far the next chunk starts (so neighbouring chunks overlap). */
export const CHUNK_LINES = 40
export const CHUNK_STEP = 30
/** Files larger than this, or beyond this many, are not indexed (the result then says complete: false). */
export const INDEX_MAX_FILE_BYTES = 1024 * 1024
export const INDEX_MAX_FILES = 20_000
/** Characters of one result's text at most. */
const RESULT_TEXT_CHARS = 4000

interface IndexedFile {
  readonly sha256: string
  readonly size: number
  readonly mtimeMs: number
  readonly chunks: ReadonlyArray<string>
}

interface StoredIndex {
  readonly version: number
  readonly files: Record<string, IndexedFile>
  readonly index: unknown
}

/** The Schema of the semantic_search index (.agentic/index/), decoded on every read; the MiniSearch part is its own JSON. */
const StoredIndexSchema: Schema.Schema<StoredIndex> = Schema.Struct({
  version: Schema.Number,
  files: Schema.Record({
    key: Schema.String,
    value: Schema.Struct({
      sha256: Schema.String,
      size: Schema.Number,
      mtimeMs: Schema.Number,
      chunks: Schema.Array(Schema.String)
    })
  }),
  index: Schema.Unknown
})

interface ChunkDoc {
  readonly id: string
  readonly path: string
  readonly startLine: number
  readonly endLine: number
  readonly text: string
}

/** Words of a text: runs of letters and digits, with identifiers also split at camelCase and "_". */
export const tokenize = (text: string): Array<string> => {
  const out: Array<string> = []
  for (const word of text.match(/[\p{L}\p{N}_$]+/gu) ?? []) {
    const parts = word
      .replace(/([\p{Ll}\p{N}])(\p{Lu})/gu, "$1 $2")
      .replace(/(\p{Lu})(\p{Lu}\p{Ll})/gu, "$1 $2")
      .split(/[\s_$]+/)
      .filter((part) => part.length > 0)
    if (parts.length > 1) out.push(word.replace(/^[_$]+|[_$]+$/g, ""))
    out.push(...parts)
  }
  return out
}

const STOP = new Set([
  "the",
  "a",
  "an",
  "and",
  "or",
  "of",
  "to",
  "in",
  "is",
  "it",
  "for",
  "on",
  "with",
  "as",
  "by",
  "be",
  "this",
  "that",
  "at",
  "from",
  "are",
  "was",
  "where",
  "what",
  "how",
  "which",
  "does",
  "do"
])

const options = {
  fields: ["text", "path"],
  storeFields: ["path", "startLine", "endLine"],
  tokenize,
  processTerm: (term: string) => {
    const lower = term.toLowerCase()
    return lower.length < 2 || STOP.has(lower) ? null : lower
  },
  searchOptions: {
    boost: { path: 2 },
    prefix: (term: string) => term.length >= 4,
    fuzzy: (term: string) => (term.length >= 6 ? 0.15 : false),
    combineWith: "OR" as const
  }
}

/** Splits a file's lines into overlapping chunks. */
export const chunkLines = (path: string, lines: ReadonlyArray<string>): Array<ChunkDoc> => {
  const chunks: Array<ChunkDoc> = []
  for (let start = 0; start < lines.length; start += CHUNK_STEP) {
    const end = Math.min(lines.length, start + CHUNK_LINES)
    chunks.push({
      id: `${path}#${start + 1}`,
      path,
      startLine: start + 1,
      endLine: end,
      text: lines.slice(start, end).join("\n")
    })
    if (end >= lines.length) break
  }
  return chunks
}

/**
 * MiniSearch, loaded on the first semantic_search: no other call pays for parsing it (issue 18: a verb
 * loads only what it uses).
 */
let miniSearch: Promise<typeof MiniSearchIndex> | undefined
const loadMiniSearch = Effect.promise(() => (miniSearch ??= import("minisearch").then((module) => module.default)))

/** The index of chunks. */
type ChunkIndex = MiniSearchIndex<ChunkDoc>

/** The subtree an index refresh walks. */
interface IndexScope {
  readonly base: string
  readonly includeIgnored: boolean
  readonly excludes: ReadonlyArray<string>
}

/** The stored index (undefined: none could be read) and, when it is of this version and loads, its chunks and files. */
const loadIndex = Effect.gen(function* () {
  const store = yield* StateReads
  const stored = yield* Effect.orElseSucceed(store.readJson(INDEX_FILE, StoredIndexSchema), () => undefined)
  const MiniSearch = yield* loadMiniSearch
  if (stored !== undefined && stored.version === INDEX_VERSION) {
    const loaded = yield* Effect.option(Effect.try(() => MiniSearch.loadJS<ChunkDoc>(stored.index as never, options)))
    if (loaded._tag === "Some") return { stored, index: loaded.value, files: { ...stored.files } }
  }
  const files: Record<string, IndexedFile> = {}
  return { stored, index: new MiniSearch<ChunkDoc>(options), files }
})

/**
 * Brings one walked file's chunks in `index` and its record in `files` up to date: "changed" when it was
 * re-chunked, "too large" when it is not indexed, "same" otherwise (size and mtime unchanged, the same
 * hash, or gone meanwhile).
 */
const indexFile = (index: ChunkIndex, files: Record<string, IndexedFile>, path: string) =>
  Effect.gen(function* () {
    const host = yield* HostReads
    const info = yield* HostInfo
    const stat = yield* Effect.orElseSucceed(host.stat(join(info.root, path)), () => undefined)
    if (stat === undefined) return "same" as const
    if (stat.size > INDEX_MAX_FILE_BYTES) return "too large" as const
    const known = files[path]
    if (known !== undefined && known.size === stat.size && known.mtimeMs === stat.mtimeMs) return "same" as const
    const bytes = yield* Effect.orElseSucceed(host.readFile(join(info.root, path)), () => undefined)
    if (bytes === undefined) return "same" as const
    const sha256 = yield* sha256Bytes(bytes)
    if (known !== undefined && known.sha256 === sha256) {
      files[path] = { ...known, size: stat.size, mtimeMs: stat.mtimeMs }
      return "same" as const
    }
    if (known !== undefined) for (const id of known.chunks) if (index.has(id)) index.discard(id)
    const described = describeBytes(bytes)
    const chunks = described.binary ? [] : chunkLines(path, described.lines)
    index.addAll(chunks)
    files[path] = { sha256, size: stat.size, mtimeMs: stat.mtimeMs, chunks: chunks.map((chunk) => chunk.id) }
    return "changed" as const
  })

/**
 * `files` without the files in scope the walk did not see (their chunks leave `index`), and how many went.
 * Only files the walk could have seen are dropped; an incomplete walk drops nothing.
 */
const dropUnseen = (
  index: ChunkIndex,
  files: Record<string, IndexedFile>,
  seen: ReadonlySet<string>,
  scope: IndexScope,
  walkComplete: boolean
) => {
  const inScope = (path: string) =>
    scope.base === ""
      ? !path.startsWith(".agentic/") || scope.base.startsWith(".agentic")
      : path.startsWith(`${scope.base}/`)
  let kept = files
  let dropped = 0
  for (const [path, known] of Object.entries(files)) {
    if (seen.has(path) || !walkComplete || !inScope(path)) continue
    for (const id of known.chunks) if (index.has(id)) index.discard(id)
    const { [path]: _, ...rest } = kept
    kept = rest
    dropped++
  }
  return { files: kept, dropped }
}

/** Brings the index up to date with the subtree in scope (under the index lock) and returns it. */
const refreshIndex = (scope: IndexScope) =>
  Effect.gen(function* () {
    const store = yield* OwnStore
    const search = yield* Search
    return yield* store.locked(
      INDEX_FILE,
      Effect.gen(function* () {
        const { stored, index, files: before } = yield* loadIndex
        const walked = yield* search.walk({ ...scope, directories: false, maxEntries: INDEX_MAX_FILES })
        let complete = walked.complete
        let changed = 0
        const seen = new Set<string>()
        for (const entry of walked.entries) {
          if (entry.type !== "file") continue
          seen.add(entry.path)
          const outcome = yield* indexFile(index, before, entry.path)
          if (outcome === "too large") complete = false
          if (outcome === "changed") changed++
        }
        const { files, dropped } = dropUnseen(index, before, seen, scope, walked.complete)
        changed += dropped
        if (changed > 0 || stored === undefined) {
          yield* store.writeText(
            INDEX_FILE,
            JSON.stringify({ version: INDEX_VERSION, files, index: index.toJSON() } satisfies StoredIndex)
          )
        }
        return { index, files: Object.keys(files).length, changed, complete }
      })
    )
  })

/** The input of semantic_search. */
interface SemanticInput {
  readonly query: string
  readonly path?: string | undefined
  readonly include?: ReadonlyArray<string> | undefined
  readonly exclude?: ReadonlyArray<string> | undefined
  readonly limit?: number | undefined
}

/** The best `limit` chunks for the query under `base` that include keeps and exclude does not cover. */
const bestChunks = (index: ChunkIndex, input: SemanticInput, base: string): ReadonlyArray<SearchResult> => {
  const include = new GlobSet(input.include ?? [])
  const exclude = new GlobSet(input.exclude ?? [])
  return index
    .search(input.query, {
      filter: (hit) => {
        const path = String(hit.path)
        return (
          (base === "" || path.startsWith(`${base}/`) || path === base) &&
          (include.isEmpty || include.matches(path)) &&
          !exclude.covers(path)
        )
      }
    })
    .slice(0, input.limit ?? 10)
}

/** One result: the chunk's lines as they are on disk now, numbered, its text cut to RESULT_TEXT_CHARS. */
const chunkResult = (hit: SearchResult) =>
  Effect.gen(function* () {
    const ws = yield* Workspace
    const bytes = yield* Effect.orElseSucceed(ws.read(String(hit.path)), () => new Uint8Array())
    const described = describeBytes(bytes)
    const lines = described.binary ? [] : described.lines.slice(Number(hit.startLine) - 1, Number(hit.endLine))
    const text = numberLines(lines, Number(hit.startLine))
    return {
      path: String(hit.path),
      score: Math.round(hit.score * 1000) / 1000,
      startLine: Number(hit.startLine),
      endLine: Number(hit.endLine),
      text: text.length > RESULT_TEXT_CHARS ? `${text.slice(0, RESULT_TEXT_CHARS)}…` : text
    }
  })

type ChunkResult = Effect.Effect.Success<ReturnType<typeof chunkResult>>

/** What the refresh found, for the summary and data of every page. */
interface IndexFacts {
  readonly indexPath: string
  readonly files: number
  readonly changed: number
  readonly complete: boolean
}

/** The result of the first `n` results, with the retention of what it shows. */
const semanticResult = (
  query: string,
  results: ReadonlyArray<ChunkResult>,
  n: number,
  facts: IndexFacts
): ToolResult => {
  const { files, changed, complete } = facts
  const shown = results.slice(0, n)
  const summary = `${shown.length} chunk(s) for ${JSON.stringify(query)}, best first (lexical BM25 ranking over ${files} indexed files${
    changed > 0 ? `; ${changed} file(s) re-indexed by hash` : ""
  }${complete ? "" : "; the index skipped some files (too large or too many)"}).${
    n < results.length
      ? ` Cut to ${n} of ${results.length} to fit maxToolResultChars; ask for fewer or read the files.`
      : ""
  }`
  const data = {
    results: shown,
    indexPath: facts.indexPath,
    indexedFiles: files,
    reindexed: changed,
    complete,
    ranking: "lexical-bm25"
  }
  const retention: ToolResult["retention"] = {
    importance: "normal",
    facts: [
      `semantic_search ${JSON.stringify(query)}: ${
        shown
          .map((result) => `${result.path}:${result.startLine}`)
          .slice(0, 10)
          .join(", ") || "nothing"
      }`
    ],
    omit_when_summarizing: ["results"]
  }
  return { summary, data, retention }
}

/** The semantic_search action. */
export const semanticSearch = (input: SemanticInput) =>
  Effect.gen(function* () {
    const ws = yield* Workspace
    const store = yield* OwnStore
    const settings = yield* CurrentSettings
    const base = yield* ws.resolve(input.path ?? "")
    if (tokenize(input.query).every((term) => options.processTerm(term) === null)) {
      return yield* Effect.fail(
        toolError(
          "INVALID_INPUT",
          `field "query" has no searchable words (only stop words or single letters); describe what you look for in words.`,
          {
            field: "query"
          }
        )
      )
    }
    const info = yield* ws.stat(base)
    if (info === undefined)
      return yield* Effect.fail(toolError("NOT_FOUND", `Nothing exists at "${base}" to search.`, { path: base }))
    const scope = yield* walkScope(info.type === "directory" ? base : dirname(base), {})
    const { index, files, changed, complete } = yield* refreshIndex(scope)
    const results = yield* Effect.forEach(bestChunks(index, input, base), chunkResult)
    const facts: IndexFacts = { indexPath: store.path(INDEX_FILE), files, changed, complete }
    const n = Math.max(
      0,
      largestFitting(
        results.length,
        (count) =>
          envelopeChars("inspect.semantic_search", semanticResult(input.query, results, count, facts)) <=
          settings.maxToolResultChars
      )
    )
    return semanticResult(input.query, results, n, facts)
  })

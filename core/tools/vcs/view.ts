/**
 * What workspace_vcs results show: one-line summaries, retention facts, and large outputs fitted to
 * maxToolResultChars with the full output as an artifact under .agentic/artifacts/vcs/. Diffs are paged
 * by line like workspace_inspect reads: hashed, with the snapshot required at nonzero offsets.
 */
import * as Effect from "effect/Effect"
import { sha256Text } from "../../gate/hash.ts"
import type { Artifact, ToolResult } from "../../protocol/envelope.ts"
import type { ToolError } from "../../protocol/errors.ts"
import { CurrentSettings } from "../../services/CurrentSettings.ts"
import type { OwnStore, StateReads } from "../../store/StateStore.ts"
import {
  envelopeChars,
  type FitInput,
  fitResult,
  jsonStringChars,
  placeholderArtifact,
  writeArtifact as writeArtifactOf
} from "../fit.ts"
import { largestFitting, offsetPastEnd, requireSnapshot, staleSnapshot } from "../inspect/paging.ts"
import { type CommitRecord, type DiffFile, diffFilesOfLines, type parseBranches, type RepoStatus } from "./parse.ts"
import { DIFF_LIMIT_DEFAULT } from "./schema.ts"

/** Writes a full output as a content-addressed artifact under .agentic/artifacts/vcs/ (repeating a call reuses the file). */
export const writeArtifact = (kind: string, stem: string, extension: string, content: string, description: string) =>
  writeArtifactOf("vcs", kind, stem, extension, content, description)

/**
 * Fits a result built from the first `n` items of each list into the budget: `build(n, artifact)` for the
 * largest n that fits; when not everything fits, the full output is an artifact (fitResult, in core/tools/fit.ts).
 */
export const fitted = (input: Omit<FitInput, "area" | "extension">) => fitResult({ ...input, area: "vcs" })

/** One line about a status. */
export const statusSummary = (status: RepoStatus): string => {
  const where = status.detached
    ? `HEAD detached at ${status.head?.slice(0, 7) ?? "?"}`
    : `On ${status.branch ?? "?"}${status.head === null ? " (no commits yet)" : ` (${status.head.slice(0, 7)})`}`
  const tracking =
    status.upstream === null
      ? ""
      : status.ahead === null
        ? `, tracking ${status.upstream}`
        : `, ${status.ahead} ahead and ${status.behind} behind ${status.upstream}`
  const counts = [
    `${status.staged.length} staged`,
    `${status.unstaged.length} unstaged`,
    `${status.untracked.length} untracked`,
    `${status.conflicted.length} conflicted`
  ].join(", ")
  const clean = status.staged.length + status.unstaged.length + status.untracked.length + status.conflicted.length === 0
  return `${where}${tracking}: ${clean ? "working tree clean" : counts}.`
}

/** The status result, its lists cut to the budget when needed (the artifact keeps them all). */
export const statusResult = (status: RepoStatus, top: string) =>
  fitted({
    operation: "vcs.status",
    max: Math.max(status.staged.length, status.unstaged.length, status.untracked.length, status.conflicted.length),
    kind: "vcs.status",
    stem: "status",
    description: "The full status, as JSON.",
    full: () => JSON.stringify({ repository: top, ...status }),
    build: (n, artifact) => {
      const cut = artifact !== undefined
      return {
        summary: `${statusSummary(status)}${cut ? ` Lists cut to ${n} entries each to fit maxToolResultChars; the full status is in ${artifact.path}.` : ""}`,
        data: {
          repository: top,
          branch: status.branch,
          detached: status.detached,
          head: status.head,
          upstream: status.upstream,
          ahead: status.ahead,
          behind: status.behind,
          clean:
            status.staged.length + status.unstaged.length + status.untracked.length + status.conflicted.length === 0,
          counts: {
            staged: status.staged.length,
            unstaged: status.unstaged.length,
            untracked: status.untracked.length,
            conflicted: status.conflicted.length
          },
          staged: status.staged.slice(0, n),
          unstaged: status.unstaged.slice(0, n),
          untracked: status.untracked.slice(0, n),
          conflicted: status.conflicted.slice(0, n),
          truncated: cut
        },
        ...(artifact === undefined ? {} : { artifacts: [artifact] }),
        retention: {
          importance: "normal",
          facts: [statusSummary(status)],
          omit_when_summarizing: ["staged", "unstaged", "untracked"]
        }
      }
    }
  })

/** The branch listing, its lists cut to the budget when needed. */
export const branchesResult = (branches: ReturnType<typeof parseBranches>, current: string | null) =>
  fitted({
    operation: "vcs.branch",
    max: Math.max(branches.local.length, branches.remote.length),
    kind: "vcs.branch",
    stem: "branches",
    description: "All branches, as JSON.",
    full: () => JSON.stringify({ current, ...branches }),
    build: (n, artifact) => ({
      summary: `${branches.local.length} local and ${branches.remote.length} remote branch${branches.remote.length === 1 ? "" : "es"}; current: ${current ?? "detached HEAD"}.${artifact === undefined ? "" : ` Lists cut to ${n} to fit maxToolResultChars; all are in ${artifact.path}.`}`,
      data: { current, local: branches.local.slice(0, n), remote: branches.remote.slice(0, n) },
      ...(artifact === undefined ? {} : { artifacts: [artifact] }),
      retention: { importance: "normal", facts: [`current branch ${current ?? "(detached)"}`] }
    })
  })

/** A log page from `ref` (HEAD when not given), cut to the budget when needed; `more` when the limit cut it. */
export const logResult = (ref: string | undefined, all: ReadonlyArray<CommitRecord>, more: boolean) =>
  fitted({
    operation: "vcs.log",
    max: all.length,
    kind: "vcs.log",
    stem: "log",
    description: "The full log page, as JSON.",
    full: () => JSON.stringify({ ref: ref ?? "HEAD", commits: all }),
    build: (n, artifact) => ({
      summary: `${all.length === 0 ? "No commits" : `${all.length} commit${all.length === 1 ? "" : "s"} from ${ref ?? "HEAD"} (${all[0]!.hash.slice(0, 7)} ${JSON.stringify(all[0]!.subject)})`}${more ? `; more exist: raise limit (at most 1000) or pass ref to start further back` : ""}.${artifact === undefined ? "" : ` Showing ${n} to fit maxToolResultChars; all ${all.length} are in ${artifact.path}.`}`,
      data: { ref: ref ?? "HEAD", commits: all.slice(0, n), returned: n, total: all.length, more },
      ...(artifact === undefined ? {} : { artifacts: [artifact] }),
      retention: {
        importance: "normal",
        facts: all.length === 0 ? [] : [`log ${ref ?? "HEAD"} at ${all[0]!.hash}`],
        omit_when_summarizing: ["commits"]
      }
    })
  })

/** An issue or pull request listing (items as gh answered, author and labels flattened), cut to the budget when needed. */
export const ghListResult = (kind: "issue" | "pr", state: string, items: ReadonlyArray<Record<string, unknown>>) => {
  const key = kind === "issue" ? "issues" : "pullRequests"
  const noun = kind === "issue" ? "issue" : "pull request"
  return fitted({
    operation: `vcs.${kind}_list`,
    max: items.length,
    kind: `vcs.${kind}_list`,
    stem: `${kind}s`,
    description: `All listed ${noun}s, as JSON.`,
    full: () => JSON.stringify({ [key]: items }),
    build: (n, artifact) => ({
      summary: `${items.length} ${state} ${noun}${items.length === 1 ? "" : "s"}${
        items.length > 0
          ? `: ${items
              .slice(0, 5)
              .map((item) => `#${item["number"]}`)
              .join(", ")}${items.length > 5 ? ", …" : ""}`
          : ""
      }.${artifact === undefined ? "" : ` Showing ${n} to fit maxToolResultChars; all are in ${artifact.path}.`}`,
      data: { [key]: items.slice(0, n), returned: n, total: items.length },
      ...(artifact === undefined ? {} : { artifacts: [artifact] }),
      retention: {
        importance: "normal",
        facts: items.slice(0, 10).map((item) => `${noun} #${item["number"]} ${item["url"]}`),
        omit_when_summarizing: [key]
      }
    })
  })
}

/** A paged text output (a diff): which page, where it came from, how to get the next. */
export interface PagedText {
  readonly operation: string
  readonly action: string
  /** The call's arguments without offset and snapshot (for the next-page call). */
  readonly args: Record<string, unknown>
  readonly text: string
  /** false when git's output was cut at the output bound. */
  readonly complete: boolean
  readonly offset: number | undefined
  readonly limit: number | undefined
  readonly snapshot: string | undefined
  /** What the text is, for the summary ("Diff of the working tree"). */
  readonly what: string
  readonly extra?: Record<string, unknown>
  readonly facts?: ReadonlyArray<string>
}

const splitLines = (text: string): ReadonlyArray<string> => {
  if (text === "") return []
  const lines = text.split("\n")
  if (lines[lines.length - 1] === "") lines.pop()
  return lines
}

/** What every page of one output shares: its lines, the page's start and size, its files and its hash. */
export interface Page {
  readonly input: PagedText
  readonly lines: ReadonlyArray<string>
  readonly offset: number
  readonly limit: number
  readonly files: ReadonlyArray<DiffFile>
  readonly additions: number
  readonly deletions: number
  readonly snapshot: string
}

/** A page of `n` lines, the first `fileCount` files, the artifact when there is one, `clipTo` characters of a line too long to fit. */
export type BuildPage = (n: number, artifact: Artifact | undefined, fileCount: number, clipTo?: number) => ToolResult

/** The output checked against the given snapshot and offset, as lines with its files and counts. */
const openPage = (input: PagedText) =>
  Effect.gen(function* () {
    const missing = requireSnapshot(input, input.action)
    if (missing !== undefined) return yield* Effect.fail(missing)
    const snapshot = yield* sha256Text(input.text)
    if (input.snapshot !== undefined && input.snapshot !== snapshot) {
      return yield* Effect.fail(staleSnapshot(input.action, input.snapshot, snapshot, `The output of ${input.action}`))
    }
    const page = pageOf(input, snapshot)
    if (page.offset > page.lines.length)
      return yield* Effect.fail(offsetPastEnd(page.offset, page.lines.length, "lines"))
    return page
  })

/** The page of an output whose hash is `snapshot`: its lines, files and counts, at the input's offset and limit. */
export const pageOf = (input: PagedText, snapshot: string): Page => {
  // The trailing empty line splitLines drops is no header or hunk line: the files are the same without it.
  const lines = splitLines(input.text)
  const files = diffFilesOfLines(lines)
  return {
    input,
    lines,
    offset: input.offset ?? 0,
    limit: input.limit ?? DIFF_LIMIT_DEFAULT,
    files,
    additions: files.reduce((sum, file) => sum + file.additions, 0),
    deletions: files.reduce((sum, file) => sum + file.deletions, 0),
    snapshot
  }
}

/** The page's summary: what changed, which lines, whether git cut the output, where the rest is, how to go on. */
const pageSummary = (
  page: Page,
  end: number,
  nextOffset: number | null,
  artifact: Artifact | undefined,
  compact: boolean
) => {
  const { input, lines, files } = page
  return [
    lines.length === 0
      ? `${input.what}: no changes.`
      : `${input.what}: ${files.length} file${files.length === 1 ? "" : "s"}, +${page.additions} -${page.deletions}; lines ${page.offset + 1}-${end} of ${lines.length}.`,
    input.complete ? "" : "git's output was longer than the output bound and was cut (data.complete is false).",
    artifact === undefined || compact ? "" : `The full output is in ${artifact.path}.`,
    nextOffset === null
      ? lines.length === 0
        ? ""
        : "This is the last page (data.nextOffset is null)."
      : `Next page: workspace_vcs ${JSON.stringify({ ...input.args, offset: nextOffset, snapshot: page.snapshot })}.`
  ]
    .filter((part) => part !== "")
    .join(" ")
}

/** Builds the pages of one output; `compact` (the smallest budgets) keeps only what paging needs. */
export const pageBuilder =
  (page: Page, compact: boolean): BuildPage =>
  (n, artifact, fileCount, clipTo) =>
    pageResult(
      page,
      compact,
      n,
      artifact,
      fileCount,
      clipTo === undefined
        ? page.lines.slice(page.offset, page.offset + n).join("\n")
        : `${page.lines[page.offset]!.slice(0, clipTo)}…`,
      clipTo !== undefined,
      page.files.slice(0, fileCount)
    )

/**
 * The characters of `pageBuilder(page, compact)(n, artifact, fileCount)`'s envelope (envelopeChars) without
 * making its text or its file list: the envelope around an empty diff and no files, plus the JSON characters
 * of the page's lines (jsonStringChars of each, and two for each "\n" between two) and of the files listed
 * (each one's JSON, and a comma between two), summed once per output. Each try of the fitting then costs
 * one small envelope instead of the whole page (a 1,000-line page with 200 files was made and measured
 * ~20 times per call).
 */
export const pageChars = (page: Page) => {
  const { lines, offset, files } = page
  const want = Math.max(0, Math.min(page.limit, lines.length - offset))
  const linesBefore = [0]
  for (let index = 0; index < want; index++)
    linesBefore.push(linesBefore[index]! + jsonStringChars(lines[offset + index]!) - 2)
  const filesBefore = [0]
  for (let index = 0; index < files.length; index++)
    filesBefore.push(filesBefore[index]! + JSON.stringify(files[index]).length)
  return (compact: boolean, n: number, artifact: Artifact | undefined, fileCount: number): number =>
    envelopeChars(page.input.operation, pageResult(page, compact, n, artifact, fileCount, "", false, [])) +
    linesBefore[n]! +
    2 * Math.max(0, n - 1) +
    filesBefore[fileCount]! +
    Math.max(0, fileCount - 1)
}

/**
 * One page's result: `n` lines from the page's offset, whose text (`diff`) is given, or a clipped line's start;
 * the first `fileCount` files, listed as `listed` (pageChars measures an empty list and adds the rest).
 */
const pageResult = (
  page: Page,
  compact: boolean,
  n: number,
  artifact: Artifact | undefined,
  fileCount: number,
  diff: string,
  clipped: boolean,
  listed: ReadonlyArray<DiffFile>
): ToolResult => {
  const { input, lines, offset, files, snapshot } = page
  const end = offset + n
  const nextOffset = end >= lines.length ? null : end
  return {
    summary: pageSummary(page, end, nextOffset, artifact, compact),
    data: {
      ...input.extra,
      diff,
      ...(clipped ? { lineClipped: true } : {}),
      files: listed,
      filesTruncated: fileCount < files.length,
      offset,
      limit: page.limit,
      returned: n,
      totalLines: lines.length,
      nextOffset,
      complete: input.complete,
      snapshot
    },
    ...(artifact === undefined ? {} : { artifacts: [artifact] }),
    retention: {
      importance: "normal",
      facts: compact
        ? []
        : [
            ...(input.facts ?? []),
            `${input.what}: ${files.length} files, +${page.additions} -${page.deletions} (snapshot ${snapshot.slice(0, 12)})`
          ],
      omit_when_summarizing: ["diff", "files"]
    }
  }
}

/**
 * The page when not even one line fits (a minified file's line): the line's start, halved until the envelope
 * fits, so the next page moves on; the artifact has it whole.
 */
const clippedLine = (operation: string, budget: number, build: BuildPage, artifact: Artifact, fileCount: number) => {
  let room = Math.max(0, budget - envelopeChars(operation, build(0, artifact, fileCount)) - 200)
  while (room > 0 && envelopeChars(operation, build(1, artifact, fileCount, room)) > budget) room = Math.floor(room / 2)
  return build(1, artifact, fileCount, room)
}

/** One page of a diff: checked against the snapshot, fitted to the budget, the full diff an artifact when paged. */
export const pagedText = (
  input: PagedText
): Effect.Effect<ToolResult, ToolError, CurrentSettings | StateReads | OwnStore> =>
  Effect.gen(function* () {
    const budget = (yield* CurrentSettings).maxToolResultChars
    const page = yield* openPage(input)
    const { lines, offset, files } = page
    const want = Math.min(page.limit, lines.length - offset)
    const description = `The full output of ${input.action} (${lines.length} lines).`
    const chars = pageChars(page)
    if (want >= lines.length && chars(false, want, undefined, files.length) <= budget)
      return pageBuilder(page, false)(want, undefined, files.length)
    const marker = placeholderArtifact("vcs", input.operation, input.action, "diff", description)
    const compact = envelopeChars(input.operation, pageBuilder(page, false)(1, marker, 0, 40)) > budget
    const build = pageBuilder(page, compact)
    // The file list takes at most half the budget, so lines of the diff always have room.
    const fileCount = Math.max(
      0,
      largestFitting(Math.min(files.length, 200), (count) => chars(compact, 0, marker, count) <= budget / 2)
    )
    const n = Math.max(
      0,
      largestFitting(want, (count) => chars(compact, count, marker, fileCount) <= budget)
    )
    const artifact = yield* writeArtifact(input.operation, input.action, "diff", input.text, description)
    if (n > 0 || want === 0) return build(n, artifact, fileCount)
    return clippedLine(input.operation, budget, build, artifact, fileCount)
  })

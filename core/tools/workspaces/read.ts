/**
 * read_workspace: bounded, paged views bound to a read_snapshot. Each view enumerates its entries, the
 * snapshot is the SHA-256 of the view's parameters and that enumeration, and a page is a slice of it;
 * a nonzero offset needs the snapshot of offset 0, and one from before a change fails SNAPSHOT_STALE.
 */
import * as Effect from "effect/Effect"
import { hashOperation } from "../../gate/hash.ts"
import type { ToolResult } from "../../protocol/envelope.ts"
import { toolError } from "../../protocol/errors.ts"
import type { Git } from "../../exec/git.ts"
import { NOT_AGENTIC, readLine } from "./git.ts"

/** The largest number of untracked files a changes enumeration lists; past it `complete` is false. */
export const UNTRACKED_SCAN_CAP = 2000
/** The largest number of history entries one snapshot spans (the history view's enumeration bound). */
export const HISTORY_CAP = 10_000

export interface ReadInput {
  readonly context_id: string
  readonly view: string
  readonly offset?: number
  readonly limit?: number
  readonly read_snapshot?: string
  readonly branch?: string
}

/** One change of the working copy. */
export interface ChangeEntry {
  readonly path: string
  readonly kind: "changed" | "renamed" | "unmerged" | "untracked"
  readonly index: string
  readonly worktree: string
  readonly from?: string
}

/** Parses `git status --porcelain=v2 -z`, capping untracked entries. */
export const parseChanges = (
  text: string,
  cap = UNTRACKED_SCAN_CAP
): { entries: ReadonlyArray<ChangeEntry>; complete: boolean } => {
  const parts = text.split("\0")
  const entries: Array<ChangeEntry> = []
  let untracked = 0
  let complete = true
  for (let i = 0; i < parts.length; i++) {
    const line = parts[i]!
    if (line === "") continue
    const kind = line[0]
    if (kind === "1") {
      const f = line.split(" ")
      entries.push({ path: f.slice(8).join(" "), kind: "changed", index: f[1]![0]!, worktree: f[1]![1]! })
    } else if (kind === "2") {
      const f = line.split(" ")
      entries.push({
        path: f.slice(9).join(" "),
        kind: "renamed",
        index: f[1]![0]!,
        worktree: f[1]![1]!,
        from: parts[++i]!
      })
    } else if (kind === "u") {
      const f = line.split(" ")
      entries.push({ path: f.slice(10).join(" "), kind: "unmerged", index: f[1]![0]!, worktree: f[1]![1]! })
    } else if (kind === "?") {
      untracked++
      if (untracked > cap) complete = false
      else entries.push({ path: line.slice(2), kind: "untracked", index: "?", worktree: "?" })
    }
  }
  return { entries, complete }
}

export const loadChanges = (git: Git) =>
  Effect.map(
    git.must([
      "status",
      "--porcelain=v2",
      "-z",
      "--untracked-files=all",
      "--ignore-submodules=dirty",
      "--",
      ".",
      ...NOT_AGENTIC
    ]),
    (out) => parseChanges(out)
  )

/** One stash entry: `stash_id` is the identifier to pass to stash_restore and stash_discard. */
export interface StashEntry {
  readonly stash_id: string
  readonly ref: string
  readonly message: string
}

export const loadStashes = (git: Git) =>
  Effect.map(git.exec(["stash", "list", "-z", "--format=%H%x1f%gd%x1f%gs"]), (result) => ({
    entries: (result.exitCode === 0 ? result.stdout.split("\0") : [])
      .filter((line) => line.trim() !== "")
      .map((line): StashEntry => {
        const [id, ref, message] = line.replace(/^\n/, "").split("\x1f")
        return { stash_id: id!, ref: ref!, message: message ?? "" }
      }),
    complete: true
  }))

export interface BranchEntry {
  readonly name: string
  readonly kind: "local" | "remote"
  readonly head: string
  readonly upstream: string | null
}

export const loadBranches = (git: Git) =>
  Effect.map(
    git.must(["for-each-ref", "--format=%(refname)%1f%(objectname)%1f%(upstream:short)", "refs/heads", "refs/remotes"]),
    (out) => ({
      entries: out
        .split("\n")
        .filter((line) => line !== "")
        .map((line): BranchEntry => {
          const [ref, head, upstream] = line.split("\x1f")
          const local = ref!.startsWith("refs/heads/")
          return {
            name: ref!.slice(local ? 11 : 13),
            kind: local ? "local" : "remote",
            head: head!,
            upstream: upstream === "" || upstream === undefined ? null : upstream
          }
        })
        .filter((entry) => !(entry.kind === "remote" && entry.name.endsWith("/HEAD"))),
      complete: true
    })
  )

export interface HistoryEntry {
  readonly commit: string
  readonly author: string
  readonly date: string
  readonly subject: string
}

const invalid = (field: string, message: string) => toolError("INVALID_INPUT", message, { field })

/** The branch a history read is scoped to, as a full ref, and its tip; NOT_FOUND for an unknown branch. */
const historyTip = (git: Git, branch: string | undefined) =>
  Effect.gen(function* () {
    const name = branch ?? (yield* readLine(git, ["symbolic-ref", "--short", "-q", "HEAD"]))
    if (name === "")
      return yield* Effect.fail(
        invalid(
          "branch",
          "HEAD is detached: give branch (a local branch name, or a remote one like origin/main) to read its history."
        )
      )
    for (const ref of [`refs/heads/${name}`, `refs/remotes/${name}`]) {
      const tip = yield* readLine(git, ["rev-parse", "-q", "--verify", `${ref}^{commit}`])
      if (tip !== "") return { name, ref, tip }
    }
    return yield* Effect.fail(
      toolError(
        "NOT_FOUND",
        `branch "${name}" is neither a local nor a remote-tracking branch; read the branches view for the names.`,
        { field: "branch" }
      )
    )
  })

const snapshotOf = (parts: unknown) => hashOperation({ v: 1, ...(parts as object) })

/** Checks the snapshot rule: required at a nonzero offset, and equal to the current one whenever given. */
const checkSnapshot = (input: ReadInput, current: string) => {
  const offset = input.offset ?? 0
  if (offset > 0 && input.read_snapshot === undefined) {
    return Effect.fail(
      invalid(
        "read_snapshot",
        `read_snapshot is required at a nonzero offset: pass the read_snapshot of offset 0 exactly (or read from offset 0 again).`
      )
    )
  }
  if (input.read_snapshot !== undefined && input.read_snapshot !== current) {
    return Effect.fail(
      toolError(
        "SNAPSHOT_STALE",
        `read_snapshot no longer matches the ${input.view} view: it changed since that page. Read it again from offset 0 (a fresh review), never with a guessed snapshot.`,
        {
          field: "read_snapshot"
        }
      )
    )
  }
  return Effect.void
}

/** One page of an enumerated view. */
const page = <A>(
  view: string,
  entries: ReadonlyArray<A>,
  complete: boolean,
  snapshot: string,
  input: ReadInput
): ToolResult => {
  const offset = input.offset ?? 0
  const limit = input.limit ?? 32
  const slice = entries.slice(offset, offset + limit)
  const next = offset + limit < entries.length ? offset + limit : null
  return {
    summary: `${view}: entries ${slice.length === 0 ? "none" : `${offset + 1}-${offset + slice.length}`} of ${entries.length}${complete ? "" : " (enumeration incomplete)"}${next === null ? "" : `; next_offset ${next}`}.`,
    data: { view, entries: slice, total: entries.length, offset, next_offset: next, complete, read_snapshot: snapshot }
  }
}

/** Reads one page of a base or remote view. */
export const readView = (git: Git, input: ReadInput) =>
  Effect.gen(function* () {
    if (input.branch !== undefined && input.view !== "history")
      return yield* Effect.fail(
        invalid("branch", `branch belongs to the history view only; remove it for ${input.view}.`)
      )
    if (input.view === "history") {
      const { name, ref, tip } = yield* historyTip(git, input.branch)
      const snapshot = yield* snapshotOf({ view: "history", ref, tip })
      yield* checkSnapshot(input, snapshot)
      const offset = input.offset ?? 0
      const limit = input.limit ?? 32
      const out = yield* git.must([
        "log",
        "--no-show-signature",
        `--skip=${offset}`,
        `-n${limit + 1}`,
        "--format=%H%x1f%an%x1f%aI%x1f%s%x1e",
        tip,
        "--"
      ])
      const entries = out
        .split("\x1e")
        .map((line) => line.replace(/^\n/, ""))
        .filter((line) => line !== "")
        .map((line): HistoryEntry => {
          const [commit, author, date, subject] = line.split("\x1f")
          return { commit: commit!, author: author!, date: date!, subject: subject ?? "" }
        })
      const slice = entries.slice(0, limit)
      const next = entries.length > limit && offset + limit <= HISTORY_CAP ? offset + limit : null
      return {
        summary: `history of ${name}: ${slice.length} commit(s) from offset ${offset}${next === null ? "" : `; next_offset ${next}`}.`,
        data: {
          view: "history",
          branch: name,
          entries: slice,
          offset,
          next_offset: next,
          complete: !(entries.length > limit && next === null),
          read_snapshot: snapshot
        }
      } satisfies ToolResult
    }
    const listed =
      input.view === "changes"
        ? yield* loadChanges(git)
        : input.view === "stashes"
          ? yield* loadStashes(git)
          : yield* loadBranches(git)
    const snapshot = yield* snapshotOf({ view: input.view, entries: listed.entries, complete: listed.complete })
    yield* checkSnapshot(input, snapshot)
    return page(input.view, listed.entries as ReadonlyArray<unknown>, listed.complete, snapshot, input)
  })

/** The before-state of workspace_vcs actions, read through git (never written: reads take no optional locks). */
import * as Effect from "effect/Effect"
import { sha256Text } from "../../gate/hash.ts"
import { toolError, type ToolError } from "../../protocol/errors.ts"
import { parseStatus, type RepoStatus } from "./parse.ts"
import { checkRefText, splitRevision } from "./plan.ts"
import { type Git, withIndexCopy } from "../../exec/git.ts"

/** The pathspecs that keep `.agentic/` (at the workspace root) out of a repository whose top is `top`. */
export const agenticExclude = (top: string): ReadonlyArray<string> => (top === "" ? [":(exclude,top).agentic"] : [])

/** The raw porcelain v2 status (what checkout and add bind) and its parse. */
export const loadStatus = (git: Git, top: string) =>
  Effect.gen(function* () {
    const text = yield* git.must(
      [
        "status",
        "--porcelain=v2",
        "--branch",
        "-z",
        "--untracked-files=all",
        "--ignore-submodules=dirty",
        "--",
        ...agenticExclude(top)
      ],
      { maxOutputBytes: 256 * 1024 * 1024 }
    )
    return { text, status: parseStatus(text), sha256: yield* sha256Text(text) } as {
      text: string
      status: RepoStatus
      sha256: string
    }
  })

/** HEAD's commit, or null in a repository without commits. */
export const loadHead = (git: Git) =>
  Effect.map(git.exec(["rev-parse", "-q", "--verify", "HEAD^{commit}"]), (result) =>
    result.exitCode === 0 ? result.stdout.trim() : null
  )

/** The current branch, or null when HEAD is detached. */
export const loadBranch = (git: Git) =>
  Effect.map(git.exec(["symbolic-ref", "-q", "--short", "HEAD"]), (result) =>
    result.exitCode === 0 ? result.stdout.trim() : null
  )

/** The commit a ref names, or null when it names none. */
export const commitOf = (git: Git, ref: string) =>
  Effect.map(git.exec(["rev-parse", "-q", "--verify", "--end-of-options", `${ref}^{commit}`]), (result) =>
    result.exitCode === 0 ? result.stdout.trim() : null
  )

/** INVALID_INPUT unless `git check-ref-format` accepts `full` (e.g. refs/heads/<name>). */
export const checkRefFormat = (git: Git, field: string, value: string, full: string, what: string) =>
  Effect.gen(function* () {
    const result = yield* git.exec(["check-ref-format", full])
    if (result.exitCode === 0) return
    return yield* Effect.fail(
      toolError(
        "INVALID_INPUT",
        `field "${field}" ${JSON.stringify(value)} is not a valid ${what} (git check-ref-format refused it); use letters, digits, "-", "_", "/" and ".", with no "..", spaces or a leading "-".`,
        {
          field
        }
      )
    )
  })

/** A model-given revision (a branch, tag, sha or HEAD, with ~N/^N suffixes), checked and resolved to its commit. */
export const resolveRevision = (git: Git, field: string, value: string): Effect.Effect<string, ToolError> =>
  Effect.gen(function* () {
    const textError = checkRefText(field, value, "revision")
    if (textError !== undefined) return yield* Effect.fail(textError)
    const { name } = splitRevision(value)
    if (!/^[0-9a-f]{4,64}$/i.test(name) && name !== "HEAD")
      yield* checkRefFormat(git, field, value, name.includes("/") ? name : `refs/heads/${name}`, "ref")
    const commit = yield* commitOf(git, value)
    if (commit === null) {
      return yield* Effect.fail(
        toolError(
          "NOT_FOUND",
          `field "${field}" ${JSON.stringify(value)} names no commit in this repository; list branches with workspace_vcs {"action":"branch"} or commits with {"action":"log"}.`,
          {
            field
          }
        )
      )
    }
    return commit
  })

/**
 * `git write-tree` of the index without touching it: git rewrites the index's cache-tree when it writes a
 * tree, so it runs on a copy (GIT_INDEX_FILE under .agentic/vcs/scratch/), and the real index stays byte-equal.
 */
export const writeTree = (git: Git) =>
  withIndexCopy(git, "vcs", "fail", ({ env }) => Effect.map(git.must(["write-tree"], { env }), (out) => out.trim()))

/** The tree of a commit. */
export const treeOf = (git: Git, commit: string) =>
  Effect.map(git.must(["rev-parse", "--verify", `${commit}^{tree}`]), (out) => out.trim())

/** The remotes and their URLs, as `git remote -v` prints them (what a gh action's approval binds). */
export const loadRemotes = (git: Git) => git.must(["remote", "-v"])

/** The fetch URL of a remote, or null when there is no such remote. */
export const remoteUrl = (git: Git, remote: string) =>
  Effect.map(git.exec(["config", "--get", `remote.${remote}.url`]), (result) =>
    result.exitCode === 0 ? result.stdout.trim() : null
  )

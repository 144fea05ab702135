/**
 * The before-state of workspace_vcs actions, read through git (never written: reads take no optional locks):
 * the repository reads every action shares, model-given paths as pathspecs, and one loader per gated action
 * (what its pure planner in plan.ts needs, or the no-op result).
 */
import * as Effect from "effect/Effect"
import { type Git, findRepository, gitMessage, openGh, openGit, shownCommand } from "../../exec/git.ts"
import { withIndexCopy } from "../../exec/indexCopy.ts"
import type { VcsReads } from "../../services/VcsReads.ts"
import { sha256Text } from "../../gate/hash.ts"
import { toolError, type ToolError } from "../../protocol/errors.ts"
import { CurrentSettings } from "../../services/CurrentSettings.ts"
import { Workspace } from "../../services/Workspace.ts"
import type { ReadContext } from "../Tool.ts"
import { BRANCH_FORMAT, parseBranches, parseStatus, type RepoStatus } from "./parse.ts"
import { type Before, before, checkMessage, checkRefText, splitRevision } from "./plan.ts"
import type { VcsActions, VcsInput } from "./schema.ts"
import { branchesResult } from "./view.ts"

type Loader<K extends keyof typeof VcsActions> = (input: VcsInput<K>) => Effect.Effect<Before, ToolError, ReadContext>

/** Nothing, or the check's refusal. */
const fail = (error: ToolError | undefined) => (error === undefined ? Effect.void : Effect.fail(error))

/** INVALID_INPUT on one field. */
export const invalid = (field: string, message: string) => Effect.fail(toolError("INVALID_INPUT", message, { field }))

/** VCS_FAILED for a gh command that exited nonzero, with what it said. */
export const ghFailure = (
  args: ReadonlyArray<string>,
  ran: { exitCode: number | null; stderr: string; stdout: string }
) =>
  toolError(
    "VCS_FAILED",
    `${shownCommand("gh", args)} failed with exit code ${ran.exitCode}: ${gitMessage(ran.stderr, ran.stdout)}`,
    {
      command: shownCommand("gh", args),
      exitCode: ran.exitCode,
      stderr: gitMessage(ran.stderr, ran.stdout)
    }
  )

/** The pathspecs that keep `.agentic/` (at the workspace root) out of a repository whose top is `top`. */
export const agenticExclude = (top: string): ReadonlyArray<string> => (top === "" ? [":(exclude,top).agentic"] : [])

/** The raw porcelain v2 status. */
const statusText = (git: Git, top: string) =>
  git.must(
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

/** The status, parsed. */
export const loadStatus = (git: Git, top: string): Effect.Effect<RepoStatus, ToolError, VcsReads> =>
  Effect.map(statusText(git, top), parseStatus)

/**
 * The SHA-256 of the raw status, which add and checkout bind (only they hash it: a status read or commit's
 * conflict check never used the hash).
 */
export const loadStatusSha256 = (git: Git, top: string): Effect.Effect<string, ToolError, VcsReads> =>
  Effect.flatMap(statusText(git, top), sha256Text)

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
export const resolveRevision = (git: Git, field: string, value: string): Effect.Effect<string, ToolError, VcsReads> =>
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
  withIndexCopy(git, "vcs", "fail", (copy) => Effect.map(copy.must(["write-tree"]), (out) => out.trim()))

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

/** Workspace-relative paths -> repository-relative ones; PROTECTED_PATH for .git/, .agentic/ and protected globs. */
export const repoPaths = (paths: ReadonlyArray<string>, top: string, refuseProtected: boolean) =>
  Effect.gen(function* () {
    const workspace = yield* Workspace
    const out: Array<string> = []
    for (const [index, given] of paths.entries()) {
      const rel = yield* workspace.resolve(given, `paths.${index}`)
      if (refuseProtected && rel !== "" && workspace.isProtected(rel)) {
        return yield* Effect.fail(
          toolError(
            "PROTECTED_PATH",
            `paths.${index} "${given}" is protected (.git/, .agentic/ and the protectedPatterns globs are never staged by workspace_vcs); leave it out of add.`,
            { field: `paths.${index}`, path: rel }
          )
        )
      }
      if (top === "") out.push(rel)
      else if (rel === top) out.push("")
      else if (rel.startsWith(`${top}/`)) out.push(rel.slice(top.length + 1))
      else {
        return yield* invalid(
          `paths.${index}`,
          `paths.${index} "${given}" is outside the repository at ${top}/; give paths inside it.`
        )
      }
    }
    return out
  })

/** Literal pathspecs from the repository's top (no globs); the top itself is `:(top)`. */
export const pathspecs = (paths: ReadonlyArray<string>) =>
  paths.map((path) => (path === "" ? ":(top)" : `:(literal,top)${path}`))

/** The pathspecs add appends: .agentic/ always, and the protected globs when the repository is the workspace. */
export const addExcludes = (top: string) =>
  Effect.map(CurrentSettings, (settings) => [
    ...agenticExclude(top),
    ...(top === "" ? settings.protectedPatterns.map((pattern) => `:(exclude,glob,top)${pattern}`) : [])
  ])

/** The branch listing (branch without create or delete): local and remote branches and the current one. */
export const listBranches = (git: Git) =>
  Effect.gen(function* () {
    const branches = parseBranches(yield* git.must(["for-each-ref", BRANCH_FORMAT, "refs/heads", "refs/remotes"]))
    const current = branches.local.find((branch) => branch.current)?.name ?? (yield* loadBranch(git))
    return yield* branchesResult(branches, current)
  })

/** The before-state of branch: the listing (a no-op result), or the before-state of a create or delete. */
export const beforeBranch: Loader<"branch"> = (input) =>
  Effect.gen(function* () {
    const git = yield* openGit(input.cwd)
    const repo = yield* findRepository(git)
    const create = input.create === true
    const remove = input.delete === true
    if (create && remove)
      return yield* invalid("create", "create: true and delete: true exclude each other; pass one of them.")
    if (!create && !remove) {
      if (input.name !== undefined || input.force !== undefined || input.start_point !== undefined) {
        return yield* invalid(
          "name",
          "branch with name needs create: true or delete: true (without either it lists branches and takes no name, force or start_point)."
        )
      }
      return before(git, { _tag: "NoOp", result: yield* listBranches(git) })
    }
    if (input.name === undefined)
      return yield* invalid("name", `field "name" is required with ${create ? "create" : "delete"}: true.`)
    yield* fail(checkRefText("name", input.name, "branch"))
    yield* checkRefFormat(git, "name", input.name, `refs/heads/${input.name}`, "branch name")
    const existing = yield* commitOf(git, `refs/heads/${input.name}`)
    if (create) {
      if (input.force !== undefined) return yield* invalid("force", "force applies to delete only; remove it.")
      if (existing !== null) {
        return yield* invalid(
          "name",
          `branch ${input.name} already exists (at ${existing.slice(0, 7)}); pick another name, or check it out.`
        )
      }
      const start = yield* resolveRevision(git, "start_point", input.start_point ?? "HEAD")
      return before(git, {
        _tag: "BranchCreate",
        state: { cwd: git.cwd, top: repo.top, name: input.name, startPoint: input.start_point ?? "HEAD", start }
      })
    }
    if (input.start_point !== undefined)
      return yield* invalid("start_point", "start_point applies to create only; remove it.")
    if (existing === null) {
      return yield* Effect.fail(
        toolError(
          "NOT_FOUND",
          `There is no local branch ${input.name}; list branches with workspace_vcs {"action":"branch"}.`,
          { field: "name" }
        )
      )
    }
    if ((yield* loadBranch(git)) === input.name) {
      return yield* invalid(
        "name",
        `${input.name} is the current branch and cannot be deleted; check out another branch first.`
      )
    }
    return before(git, {
      _tag: "BranchDelete",
      state: { cwd: git.cwd, top: repo.top, name: input.name, force: input.force === true, tip: existing }
    })
  })

/** The before-state of init: the folder and branch, or a no-op when the folder is a repository already. */
export const beforeInit: Loader<"init"> = (input) =>
  Effect.gen(function* () {
    const git = yield* openGit(input.cwd)
    if (input.branch !== undefined) {
      yield* fail(checkRefText("branch", input.branch, "branch"))
      yield* checkRefFormat(git, "branch", input.branch, `refs/heads/${input.branch}`, "branch name")
    }
    const inside = git.toplevel
    if (inside.exitCode === 0 && inside.stdout.trim() === git.cwdAbs) {
      const branch = yield* loadBranch(git)
      return before(git, {
        _tag: "NoOp",
        result: {
          summary: `${git.cwd === "" ? "The workspace root" : git.cwd} is already a git repository (on ${branch ?? "a detached HEAD"}): nothing was done.`,
          data: { initialized: false, alreadyRepository: true, cwd: git.cwd, branch },
          retention: { importance: "normal" }
        }
      })
    }
    return before(git, { _tag: "Init", cwd: git.cwd, branch: input.branch ?? null })
  })

/** The before-state of add: the repository paths, the excludes and the status add binds. */
export const beforeAdd: Loader<"add"> = (input) =>
  Effect.gen(function* () {
    const git = yield* openGit(input.cwd)
    const repo = yield* findRepository(git)
    const paths = yield* repoPaths(input.paths, repo.top, true)
    const sha256 = yield* loadStatusSha256(git, repo.top)
    return before(git, {
      _tag: "Add",
      cwd: git.cwd,
      top: repo.top,
      paths,
      excludes: yield* addExcludes(repo.top),
      statusSha256: sha256
    })
  })

/** The before-state of commit: the message, the tree the index writes and HEAD (refused without an identity, with conflicts or with nothing to commit). */
export const beforeCommit: Loader<"commit"> = (input) =>
  Effect.gen(function* () {
    yield* fail(checkMessage(input.message))
    const git = yield* openGit(input.cwd)
    const repo = yield* findRepository(git)
    const amend = input.amend === true
    const ident = yield* git.exec(["var", "GIT_COMMITTER_IDENT"])
    if (ident.exitCode !== 0) {
      return yield* Effect.fail(
        toolError(
          "VCS_FAILED",
          `git commit cannot run: git has no identity for the commit. The user must set one: git config user.email "you@example.com" and git config user.name "Your Name" (in the repository, or --global). git said: ${gitMessage(ident.stderr)}`,
          { command: "git commit", exitCode: ident.exitCode, setting: "git config user.email" }
        )
      )
    }
    const status = yield* loadStatus(git, repo.top)
    if (status.conflicted.length > 0) {
      const paths = status.conflicted.map((entry) => entry.path)
      return yield* Effect.fail(
        toolError(
          "MERGE_CONFLICT",
          `git commit cannot run: ${paths.join(", ")} ${paths.length === 1 ? "is" : "are"} unresolved. Resolve each (edit it, then add it), then commit.`,
          {
            conflicted: paths
          }
        )
      )
    }
    const head = yield* loadHead(git)
    if (amend && head === null) return yield* invalid("amend", "There is no commit to amend yet; commit without amend.")
    const tree = yield* writeTree(git)
    if (!amend && head !== null && tree === (yield* treeOf(git, head))) {
      return yield* Effect.fail(
        toolError(
          "VCS_FAILED",
          "Nothing to commit: the index matches HEAD. Stage changes with workspace_vcs add first (status shows what changed).",
          { command: "git commit" }
        )
      )
    }
    const current = yield* loadBranch(git)
    return before(git, {
      _tag: "Commit",
      state: { cwd: git.cwd, top: repo.top, message: input.message, amend, tree, head, branch: current }
    })
  })

/** The before-state of checkout: the target commit, HEAD and the status checkout binds. */
export const beforeCheckout: Loader<"checkout"> = (input) =>
  Effect.gen(function* () {
    const git = yield* openGit(input.cwd)
    const repo = yield* findRepository(git)
    const target = yield* resolveRevision(git, "ref", input.ref)
    const sha256 = yield* loadStatusSha256(git, repo.top)
    const head = yield* loadHead(git)
    return before(git, {
      _tag: "Checkout",
      state: { cwd: git.cwd, top: repo.top, ref: input.ref, target, head, statusSha256: sha256 }
    })
  })

/** The before-state of push: the remote and its URL, the branch, and the local and remote-tracking commits. */
export const beforePush: Loader<"push"> = (input) =>
  Effect.gen(function* () {
    const git = yield* openGit(input.cwd)
    const repo = yield* findRepository(git)
    const remote = input.remote ?? "origin"
    yield* fail(checkRefText("remote", remote, "remote"))
    let name = input.branch
    if (name === undefined) {
      const current = yield* loadBranch(git)
      if (current === null)
        return yield* invalid("branch", 'HEAD is detached: pass "branch" to say which branch to push.')
      name = current
    } else {
      yield* fail(checkRefText("branch", name, "branch"))
      yield* checkRefFormat(git, "branch", name, `refs/heads/${name}`, "branch name")
    }
    const url = yield* remoteUrl(git, remote)
    if (url === null) {
      const remotes = (yield* loadRemotes(git))
        .split("\n")
        .map((line) => line.split("\t")[0])
        .filter((line) => line !== "")
      return yield* Effect.fail(
        toolError(
          "NOT_FOUND",
          `There is no remote "${remote}" (remotes: ${[...new Set(remotes)].join(", ") || "none"}); pass an existing remote.`,
          { field: "remote" }
        )
      )
    }
    const localCommit = yield* commitOf(git, `refs/heads/${name}`)
    if (localCommit === null)
      return yield* Effect.fail(
        toolError("NOT_FOUND", `There is no local branch ${name} with commits to push.`, { field: "branch" })
      )
    const remoteCommit = yield* commitOf(git, `refs/remotes/${remote}/${name}`)
    return before(git, {
      _tag: "Push",
      state: {
        cwd: git.cwd,
        top: repo.top,
        remote,
        remoteUrl: url,
        branch: name,
        localCommit,
        remoteCommit,
        force: input.force === true,
        setUpstream: input.set_upstream === true
      },
      options: git.pushOptions(remote)
    })
  })

/** The before-state of issue_create: the remotes (which repository gh reaches) and the issue. */
export const beforeIssueCreate: Loader<"issue_create"> = (input) =>
  Effect.gen(function* () {
    const git = yield* openGit(input.cwd)
    yield* findRepository(git)
    const gh = yield* openGh(git)
    const remotes = yield* loadRemotes(git)
    return before(
      git,
      { _tag: "IssueCreate", state: { cwd: git.cwd, remotes, title: input.title, body: input.body ?? "" } },
      gh
    )
  })

/** The before-state of pr_create: the remotes, the head branch and its commit, and the pull request. */
export const beforePrCreate: Loader<"pr_create"> = (input) =>
  Effect.gen(function* () {
    const git = yield* openGit(input.cwd)
    yield* findRepository(git)
    const gh = yield* openGh(git)
    for (const field of ["base", "head"] as const) {
      const value = input[field]
      if (value !== undefined) {
        yield* fail(checkRefText(field, value, "branch"))
        yield* checkRefFormat(git, field, value, `refs/heads/${value}`, "branch name")
      }
    }
    const head = input.head ?? (yield* loadBranch(git))
    if (head === null) return yield* invalid("head", 'HEAD is detached: pass "head" (the branch with the changes).')
    const headCommit = yield* commitOf(git, `refs/heads/${head}`)
    const remotes = yield* loadRemotes(git)
    return before(
      git,
      {
        _tag: "PrCreate",
        state: {
          cwd: git.cwd,
          remotes,
          title: input.title,
          body: input.body ?? "",
          base: input.base ?? null,
          head,
          headCommit,
          draft: input.draft === true
        }
      },
      gh
    )
  })

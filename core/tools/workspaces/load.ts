/**
 * The before-state of the Workspaces tools, read through git and gh (never written): the status facts,
 * the checks an action's fields need against the working copy, each action's review (what it binds and
 * would run), what its intent records for reconciliation, and the loaded request a plan is made from.
 */
import * as Effect from "effect/Effect"
import { hashOperation } from "../../gate/hash.ts"
import { toolError, type ToolError } from "../../protocol/errors.ts"
import { HostInfo } from "../../services/HostFs.ts"
import { Workspace } from "../../services/Workspace.ts"
import type { Git } from "../../exec/git.ts"
import type { ReadContext } from "../Tool.ts"
import {
  type Binding,
  checkContext,
  contextIdOf,
  githubOf,
  readBinding,
  readLine,
  requireGit,
  usableNow
} from "./git.ts"
import { repoPath as githubPath, redactText } from "./github.ts"
import { getPull } from "./prs.ts"
import { loadChanges, loadStashes } from "./read.ts"
import { conflict, type Receipt, readReceipt, unsettledRequests } from "./receipt.ts"
import { type ActionInput, type BuiltAction, inputsOf } from "./schema.ts"

// get_workspace_status ------------------------------------------------------------------------------

/** What get_workspace_status reports: the binding, its upstream and counts, the changes, the capabilities. */
export const loadStatus = Effect.gen(function* () {
  const git = yield* requireGit
  const info = yield* HostInfo
  const binding = yield* readBinding(git)
  const contextId = yield* contextIdOf(binding)
  const upstream =
    binding.branch === null ? "" : yield* readLine(git, ["rev-parse", "--abbrev-ref", "--symbolic-full-name", "@{u}"])
  const counts = upstream === "" ? "" : yield* readLine(git, ["rev-list", "--left-right", "--count", "HEAD...@{u}"])
  const [ahead, behind] = counts === "" ? [null, null] : counts.split(/\s+/).map(Number)
  const changes = yield* loadChanges(git)
  const usable = yield* usableNow
  const project = info.root.replace(/\/+$/, "").split("/").pop() ?? ""
  return { binding, contextId, upstream, ahead, behind, changes, usable, project }
})

/** The facts loadStatus read. */
export type StatusFacts = Effect.Effect.Success<typeof loadStatus>

// the checks an action's fields need ----------------------------------------------------------------

const invalid = (field: string, message: string) => toolError("INVALID_INPUT", message, { field })
const notFound = (field: string, message: string) => toolError("NOT_FOUND", message, { field })

/** The review of one action: the argv it runs, the refs it reads or moves, and its guide. */
export interface Review {
  readonly argv: ReadonlyArray<string>
  readonly refs: ReadonlyArray<string>
  readonly guide: string
}

const checkRefName = (git: Git, field: string, name: string) =>
  Effect.flatMap(git.exec(["check-ref-format", "--branch", name]), (result) =>
    result.exitCode === 0 && !name.startsWith("-")
      ? Effect.void
      : Effect.fail(invalid(field, `${field} "${name}" is not a valid branch name; give a name like feature/x.`))
  )

/** The commit a local branch points at, or "" when there is no such branch. */
export const branchTip = (git: Git, name: string) =>
  readLine(git, ["rev-parse", "-q", "--verify", `refs/heads/${name}^{commit}`])

/** The stash ref (stash@{n}) of a stash_id, or NOT_FOUND when it is not in the stash list. */
export const stashRef = (git: Git, stashId: string) =>
  Effect.flatMap(loadStashes(git), ({ entries }) => {
    const found = entries.find((entry) => entry.stash_id === stashId)
    return found === undefined
      ? Effect.fail(
          notFound(
            "stash_id",
            `stash_id ${stashId} is not in the stash list (restored or discarded already?); read the stashes view again.`
          )
        )
      : Effect.succeed(found.ref)
  })

const repoPath = (field: string, given: string) =>
  Effect.gen(function* () {
    const workspace = yield* Workspace
    const rel = yield* workspace.resolve(given, field)
    if (rel === "" || workspace.isProtected(rel)) {
      return yield* Effect.fail(
        toolError(
          "PROTECTED_PATH",
          `${field} "${given}" is protected (.git/, .agentic/, protectedPatterns) or the root; move only project files.`,
          { field }
        )
      )
    }
    return rel
  })

const remoteExists = (git: Git, remote: string) =>
  Effect.flatMap(readLine(git, ["config", "--get", `remote.${remote}.url`]), (url) =>
    url === "" || remote.startsWith("-")
      ? Effect.fail(
          notFound("remote", `remote "${remote}" is not configured; use a remote get_workspace_status lists.`)
        )
      : Effect.void
  )

/** The GitHub repository and an authenticated gh, or CAPABILITY_MISSING (the host no longer offers gh). */
export const requireGithub = (git: Git) =>
  Effect.flatMap(githubOf(git), (found) =>
    found === undefined
      ? Effect.fail(
          toolError(
            "CAPABILITY_MISSING",
            "This action needs gh authenticated for the GitHub host of a remote (gh auth login), which this host does not offer now; nothing was attempted.",
            {
              capability: "workspace:reads:pr:v1",
              needs: "gh"
            }
          )
        )
      : Effect.succeed(found)
  )

/** The fields of a decoded action, read as text (each reviewer reads only the ones its Struct declares). */
type Fields = Record<string, string>

/** One action's review: its checks against the working copy, then what it would run. */
type Reviewer = (
  git: Git,
  input: ActionInput,
  f: Fields,
  binding: Binding
) => Effect.Effect<Review, ToolError, ReadContext>

const reviewCommit: Reviewer = (git, _input, f, binding) =>
  Effect.gen(function* () {
    const headTree = binding.head === null ? "" : yield* readLine(git, ["rev-parse", `${binding.head}^{tree}`])
    if (headTree === binding.tree)
      return yield* Effect.fail(
        invalid("message", "There is nothing to commit: the working copy equals HEAD. Save changes first.")
      )
    if (binding.branch === null)
      return yield* Effect.fail(
        invalid("action", "HEAD is detached; commit needs a branch. Switch to or create a branch first.")
      )
    return {
      argv: ["git", "add", "-A", "--", ".", ":(exclude).agentic", "&&", "git", "commit", "-m", f["message"]!],
      refs: [`refs/heads/${binding.branch}`],
      guide: `Commits every saved change of the reviewed working copy (tree ${binding.tree.slice(0, 12)}) on ${binding.branch}.`
    }
  })

/** push and pull: a configured remote and a valid branch name. */
const checkRemoteBranch = (git: Git, f: Fields) =>
  Effect.zipRight(remoteExists(git, f["remote"]!), checkRefName(git, "branch", f["branch"]!))

const reviewPush: Reviewer = (git, _input, f) =>
  Effect.gen(function* () {
    yield* checkRemoteBranch(git, f)
    if ((yield* branchTip(git, f["branch"]!)) === "")
      return yield* Effect.fail(
        notFound("branch", `branch "${f["branch"]}" does not exist locally; push an existing branch.`)
      )
    return {
      argv: ["git", "push", f["remote"]!, `refs/heads/${f["branch"]}:refs/heads/${f["branch"]}`],
      refs: [`refs/heads/${f["branch"]}`, `${f["remote"]}/${f["branch"]}`],
      guide: `Publishes local ${f["branch"]} to ${f["remote"]} (never forced). A failed push keeps the local commits.`
    }
  })

const reviewPull: Reviewer = (git, _input, f, binding) =>
  Effect.gen(function* () {
    yield* checkRemoteBranch(git, f)
    return {
      argv: [
        "git",
        "fetch",
        f["remote"]!,
        `refs/heads/${f["branch"]}`,
        "&&",
        "git",
        "merge",
        "--ff-only",
        "FETCH_HEAD"
      ],
      refs: [`${f["remote"]}/${f["branch"]}`, binding.branch ?? "HEAD"],
      guide: `Fast-forwards the current branch to ${f["remote"]}/${f["branch"]}; an already-current pull is a successful no-op.`
    }
  })

const reviewBranchCreate: Reviewer = (git, _input, f) =>
  Effect.gen(function* () {
    yield* checkRefName(git, "name", f["name"]!)
    if ((yield* branchTip(git, f["name"]!)) !== "")
      return yield* Effect.fail(invalid("name", `branch "${f["name"]}" already exists; choose another name.`))
    const start = f["start_point"] ?? "HEAD"
    const sha = yield* readLine(git, ["rev-parse", "-q", "--verify", `${start}^{commit}`])
    if (sha === "" || start.startsWith("-"))
      return yield* Effect.fail(
        notFound("start_point", `start_point "${start}" names no commit; give a branch or commit.`)
      )
    return {
      argv: ["git", "branch", "--", f["name"]!, sha],
      refs: [`refs/heads/${f["name"]}`],
      guide: `Creates branch ${f["name"]} at ${sha.slice(0, 12)}.`
    }
  })

/** A handoff needs the old turn's results settled: an unknown receipt is reconciled first, never left behind. */
const requireSettled = (requestId: string) =>
  Effect.flatMap(unsettledRequests(requestId), (unsettled) =>
    unsettled.length === 0
      ? Effect.void
      : Effect.fail(
          toolError(
            "EDIT_CONFLICT",
            `branch_switch waits for ${unsettled.length} request(s) whose outcome is unknown (${unsettled.slice(0, 5).join(", ")}): observe each with get_workspace_operation until it settles (or ask the user), then review the switch again.`,
            {
              unsettled: unsettled.slice(0, 20)
            }
          )
        )
  )

const reviewBranchSwitch: Reviewer = (git, input, f, binding) =>
  Effect.gen(function* () {
    yield* checkRefName(git, "name", f["name"]!)
    if ((yield* branchTip(git, f["name"]!)) === "")
      return yield* Effect.fail(notFound("name", `branch "${f["name"]}" does not exist locally; create it first.`))
    if (binding.branch === f["name"]) return yield* Effect.fail(invalid("name", `HEAD is already on ${f["name"]}.`))
    yield* requireSettled(input.request_id)
    return {
      argv: ["git", "stash", "push", "-u", "(if there are changes)", "&&", "git", "switch", f["name"]!],
      refs: ["HEAD", `refs/heads/${f["name"]}`],
      guide: `Parks unsaved-to-git changes in a stash (kept if the switch fails), then switches to ${f["name"]}.`
    }
  })

const reviewBranchDelete: Reviewer = (git, _input, f, binding) =>
  Effect.gen(function* () {
    yield* checkRefName(git, "name", f["name"]!)
    const tip = yield* branchTip(git, f["name"]!)
    if (tip === "") return yield* Effect.fail(notFound("name", `branch "${f["name"]}" does not exist locally.`))
    if (binding.branch === f["name"])
      return yield* Effect.fail(invalid("name", `${f["name"]} is the current branch; switch away before deleting it.`))
    return {
      argv: ["git", "branch", "-D", "--", f["name"]!],
      refs: [`refs/heads/${f["name"]}`],
      guide: `Deletes branch ${f["name"]} (tip ${tip.slice(0, 12)}, kept in the receipt).`
    }
  })

const reviewMove: Reviewer = (git, _input, f) =>
  Effect.gen(function* () {
    const from = yield* repoPath("from", f["from"]!)
    const to = yield* repoPath("to", f["to"]!)
    const tracked = yield* git.exec(["ls-files", "--error-unmatch", "--", `:(literal,top)${from}`])
    if (tracked.exitCode !== 0)
      return yield* Effect.fail(notFound("from", `from "${f["from"]}" is not a tracked file; move tracked files only.`))
    const workspace = yield* Workspace
    if ((yield* workspace.stat(to)) !== undefined)
      return yield* Effect.fail(invalid("to", `to "${f["to"]}" exists already; choose a free path.`))
    return { argv: ["git", "mv", "--", from, to], refs: [], guide: `Moves ${from} to ${to} (staged as a rename).` }
  })

/** stash_restore and stash_discard: the stash must still be listed. */
const reviewStash: Reviewer = (git, input, f) =>
  Effect.map(stashRef(git, f["stash_id"]!), (ref) =>
    input.action === "stash_restore"
      ? {
          argv: ["git", "stash", "pop", ref],
          refs: [ref],
          guide: `Restores stash ${f["stash_id"]!.slice(0, 12)} into the working copy and drops it when it applies cleanly.`
        }
      : {
          argv: ["git", "stash", "drop", ref],
          refs: [ref],
          guide: `Discards stash ${f["stash_id"]!.slice(0, 12)} for good.`
        }
  )

const reviewPrCreate: Reviewer = (git, input, f) =>
  Effect.gen(function* () {
    const { repo } = yield* requireGithub(git)
    yield* checkRefName(git, "base", f["base"]!)
    yield* checkRefName(git, "head", f["head"]!)
    if (f["base"] === f["head"])
      return yield* Effect.fail(
        invalid("head", "head and base are the same branch; a pull request merges head into another branch.")
      )
    return {
      argv: ["gh", "api", "--method", "POST", `${githubPath(repo)}/pulls`],
      refs: [`${repo.owner}/${repo.repo}:${f["head"]}`, `${repo.owner}/${repo.repo}:${f["base"]}`],
      guide: `Opens a ${input["draft"] === true ? "draft " : ""}pull request "${f["title"]}" on ${repo.owner}/${repo.repo} (${repo.host}) from ${f["head"]} into ${f["base"]}. The head branch must be pushed already.`
    }
  })

const reviewPrMerge: Reviewer = (git, input) =>
  Effect.gen(function* () {
    const { gh, repo } = yield* requireGithub(git)
    const number = input["pull_request_number"] as number
    const pull = yield* getPull(gh, repo, number)
    if (pull.merged === true || pull.state !== "open")
      return yield* Effect.fail(
        invalid(
          "pull_request_number",
          `pull request #${number} is ${pull.merged === true ? "merged" : pull.state} already; nothing to merge.`
        )
      )
    return {
      argv: ["gh", "api", "--method", "PUT", `${githubPath(repo)}/pulls/${number}/merge`],
      refs: [`${repo.owner}/${repo.repo}#${number}`, `${repo.owner}/${repo.repo}:${pull.base.ref}`],
      guide: `Merges pull request #${number} "${redactText(pull.title)}" (${pull.head.ref} at ${pull.head.sha.slice(0, 12)}) into ${pull.base.ref} on ${repo.owner}/${repo.repo} with a merge commit; it merges only that head (a newer push refuses it). A merge cannot be cancelled here.`
    }
  })

const REVIEWERS: Record<BuiltAction, Reviewer> = {
  commit: reviewCommit,
  push: reviewPush,
  pull: reviewPull,
  branch_create: reviewBranchCreate,
  branch_switch: reviewBranchSwitch,
  branch_delete: reviewBranchDelete,
  move: reviewMove,
  stash_restore: reviewStash,
  stash_discard: reviewStash,
  pr_create: reviewPrCreate,
  pr_merge: reviewPrMerge
}

/** Validates an action against the working copy and returns its review. Reads only. */
export const reviewOf = (
  git: Git,
  input: ActionInput,
  binding: Binding
): Effect.Effect<Review, ToolError, ReadContext> =>
  Effect.suspend(() => REVIEWERS[input.action](git, input, input as Fields, binding))

/** What the intent records for reconciliation, read before the effect. */
export const expectOf = (git: Git, input: ActionInput, binding: Binding) =>
  Effect.gen(function* () {
    const f = input as Record<string, string>
    switch (input.action) {
      case "commit":
        return { branch: binding.branch, parent: binding.head, tree: binding.tree, message: f["message"]! }
      case "push": {
        const commit = yield* branchTip(git, f["branch"]!)
        return { remote: f["remote"]!, branch: f["branch"]!, commit }
      }
      case "pull":
        return { remote: f["remote"]!, branch: f["branch"]!, before: binding.head }
      case "branch_create":
        return {
          name: f["name"]!,
          commit: yield* readLine(git, ["rev-parse", "-q", "--verify", `${f["start_point"] ?? "HEAD"}^{commit}`])
        }
      case "branch_switch":
        return { name: f["name"]!, from: binding.branch }
      case "branch_delete":
        return { name: f["name"]!, tip: yield* branchTip(git, f["name"]!) }
      case "move":
        return { from: f["from"]!, to: f["to"]! }
      case "stash_restore":
      case "stash_discard":
        return { stash_id: f["stash_id"]! }
      case "pr_create": {
        const { repo } = yield* requireGithub(git)
        return {
          host: repo.host,
          owner: repo.owner,
          repo: repo.repo,
          head: f["head"]!,
          base: f["base"]!,
          title: f["title"]!
        }
      }
      case "pr_merge": {
        const { gh, repo } = yield* requireGithub(git)
        const pull = yield* getPull(gh, repo, input["pull_request_number"] as number)
        return {
          host: repo.host,
          owner: repo.owner,
          repo: repo.repo,
          number: input["pull_request_number"] as number,
          head_sha: pull.head.sha
        }
      }
    }
  })

// workspace_action's loaded request -------------------------------------------------------------------

/** A request loaded for planning: settled already (its receipt), or reviewed against the bound context. */
export type Loaded =
  | { readonly _tag: "Settled"; readonly receipt: Receipt }
  | {
      readonly _tag: "Review"
      readonly git: Git
      readonly binding: Binding
      readonly review: Review
      readonly hash: string
      readonly input: ActionInput
    }

/** The hash a receipt binds: the action and its inputs. */
const inputsHashOf = (input: ActionInput) => hashOperation({ action: input.action, inputs: inputsOf(input) })

/**
 * Loads a workspace_action request: a request id reused with other inputs is EDIT_CONFLICT, one past
 * confirmation is its receipt (nothing is replayed), anything else is reviewed against its context.
 */
export const loadAction = (input: ActionInput) =>
  Effect.gen(function* () {
    const git = yield* requireGit
    const hash = yield* inputsHashOf(input)
    const receipt = yield* readReceipt(input.request_id)
    if (receipt !== undefined && receipt.inputsHash !== hash) return yield* Effect.fail(conflict(input.request_id))
    if (receipt !== undefined && receipt.state !== "needs_confirmation")
      return { _tag: "Settled", receipt } satisfies Loaded as Loaded
    const binding = yield* checkContext(git, input.context_id)
    const review = yield* reviewOf(git, input, binding)
    return { _tag: "Review", git, binding, review, hash, input } satisfies Loaded as Loaded
  })

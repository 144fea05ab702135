/**
 * workspace_action's actions: their fields, what each binds and would run (the review), the effect itself
 * (run once, after the intent is written), and reconciliation, which only observes the original effect.
 */
import * as Effect from "effect/Effect"
import type { ExecResult } from "../../services/Processes.ts"
import * as Schema from "effect/Schema"
import { toolError, type ToolError } from "../../protocol/errors.ts"
import { Workspace } from "../../services/Workspace.ts"
import type { Git } from "../../exec/git.ts"
import { type Binding, githubOf, NOT_AGENTIC, readLine } from "./git.ts"
import { redactText, repoPath as githubPath, rest, restError } from "./github.ts"
import type { ReadContext, ToolContext } from "../Tool.ts"
import { getPull } from "./prs.ts"
import { loadChanges, loadStashes } from "./read.ts"
import { type Phases, type Receipt, type ReceiptState, unsettledRequests } from "./receipt.ts"
import type { WorkspaceActionName } from "./names.ts"

const UUID = Schema.String.pipe(
  Schema.pattern(/^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/, {
    message: () => "must be a UUID"
  })
)
export const ContextId = UUID.annotations({ description: "The context_id get_workspace_status returned in this turn." })
export const RequestId = UUID.annotations({
  description:
    "The original request id (a UUID you create once for a new action and keep through confirmation, polling and recovery)."
})
const Ref = Schema.String.pipe(
  Schema.minLength(1),
  Schema.maxLength(255, { message: () => "must be at most 255 characters" })
)
const Path = Schema.String.pipe(
  Schema.minLength(1),
  Schema.maxLength(4096, { message: () => "must be at most 4096 characters" })
)
const StashId = Schema.String.pipe(
  Schema.pattern(/^[0-9a-f]{40}([0-9a-f]{24})?$/, { message: () => "must be a stash_id from the stashes view" })
).annotations({
  description: "The stash_id the stashes view returned, exactly."
})

const base = { context_id: ContextId, request_id: RequestId }

/** One Struct per action: the common fields and that action's own. */
export const ActionFields = {
  commit: Schema.Struct({
    ...base,
    message: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(10_000)).annotations({
      description: "commit: the commit message."
    })
  }),
  push: Schema.Struct({
    ...base,
    remote: Ref.annotations({ description: "push, pull: the remote's name." }),
    branch: Ref.annotations({ description: "push, pull: the branch." })
  }),
  pull: Schema.Struct({
    ...base,
    remote: Ref.annotations({ description: "push, pull: the remote's name." }),
    branch: Ref.annotations({ description: "push, pull: the branch." })
  }),
  branch_create: Schema.Struct({
    ...base,
    name: Ref.annotations({ description: "The branch name." }),
    start_point: Schema.optional(
      Ref.annotations({ description: "branch_create: where the branch starts (default HEAD)." })
    )
  }),
  branch_switch: Schema.Struct({ ...base, name: Ref.annotations({ description: "The branch name." }) }),
  branch_delete: Schema.Struct({ ...base, name: Ref.annotations({ description: "The branch name." }) }),
  move: Schema.Struct({
    ...base,
    from: Path.annotations({ description: "move: the root-relative path to move." }),
    to: Path.annotations({ description: "move: the new root-relative path." })
  }),
  stash_restore: Schema.Struct({ ...base, stash_id: StashId }),
  stash_discard: Schema.Struct({ ...base, stash_id: StashId }),
  pr_create: Schema.Struct({
    ...base,
    title: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(256)).annotations({
      description: "pr_create: the pull request's title."
    }),
    body: Schema.String.pipe(Schema.maxLength(65_536)).annotations({
      description: "pr_create: the description (may be empty)."
    }),
    base: Ref.annotations({ description: "pr_create: the branch to merge into (on the GitHub repository)." }),
    head: Ref.annotations({ description: "pr_create: the branch with the changes, already pushed." }),
    draft: Schema.optional(
      Schema.Boolean.annotations({ description: "pr_create: open it as a draft (default false)." })
    )
  }),
  pr_merge: Schema.Struct({
    ...base,
    pull_request_number: Schema.Int.pipe(
      Schema.greaterThanOrEqualTo(1),
      Schema.lessThanOrEqualTo(2_147_483_647)
    ).annotations({
      description: "pr_merge: the pull request number, integer 1-2147483647."
    })
  })
} as const
export type BuiltAction = keyof typeof ActionFields
export const BUILT_ACTIONS = Object.keys(ActionFields) as ReadonlyArray<BuiltAction>
export const isBuilt = (action: WorkspaceActionName): action is BuiltAction =>
  (BUILT_ACTIONS as ReadonlyArray<string>).includes(action)

export const DESTRUCTIVE: ReadonlyArray<BuiltAction> = ["branch_switch", "branch_delete", "stash_discard", "move"]

export type ActionInput = {
  readonly action: BuiltAction
  readonly context_id: string
  readonly request_id: string
} & Record<string, unknown>

/** The inputs a receipt binds: every field but the action, as given after decoding. */
export const inputsOf = (input: ActionInput): Record<string, unknown> => {
  const { action: _action, ...rest } = input
  return rest
}

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

const branchTip = (git: Git, name: string) =>
  readLine(git, ["rev-parse", "-q", "--verify", `refs/heads/${name}^{commit}`])

const stashRef = (git: Git, stashId: string) =>
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

/** Validates an action against the working copy and returns its review. Reads only. */
export const reviewOf = (
  git: Git,
  input: ActionInput,
  binding: Binding
): Effect.Effect<Review, ToolError, ReadContext> =>
  Effect.gen(function* () {
    const f = input as Record<string, string>
    switch (input.action) {
      case "commit": {
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
      }
      case "push":
      case "pull": {
        yield* remoteExists(git, f["remote"]!)
        yield* checkRefName(git, "branch", f["branch"]!)
        if (input.action === "push" && (yield* branchTip(git, f["branch"]!)) === "")
          return yield* Effect.fail(
            notFound("branch", `branch "${f["branch"]}" does not exist locally; push an existing branch.`)
          )
        return input.action === "push"
          ? {
              argv: ["git", "push", f["remote"]!, `refs/heads/${f["branch"]}:refs/heads/${f["branch"]}`],
              refs: [`refs/heads/${f["branch"]}`, `${f["remote"]}/${f["branch"]}`],
              guide: `Publishes local ${f["branch"]} to ${f["remote"]} (never forced). A failed push keeps the local commits.`
            }
          : {
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
      }
      case "branch_create": {
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
      }
      case "branch_switch": {
        yield* checkRefName(git, "name", f["name"]!)
        if ((yield* branchTip(git, f["name"]!)) === "")
          return yield* Effect.fail(notFound("name", `branch "${f["name"]}" does not exist locally; create it first.`))
        if (binding.branch === f["name"]) return yield* Effect.fail(invalid("name", `HEAD is already on ${f["name"]}.`))
        // A handoff needs the old turn's results settled: an unknown receipt is reconciled first, never left behind.
        const unsettled = yield* unsettledRequests(input.request_id)
        if (unsettled.length > 0) {
          return yield* Effect.fail(
            toolError(
              "EDIT_CONFLICT",
              `branch_switch waits for ${unsettled.length} request(s) whose outcome is unknown (${unsettled.slice(0, 5).join(", ")}): observe each with get_workspace_operation until it settles (or ask the user), then review the switch again.`,
              {
                unsettled: unsettled.slice(0, 20)
              }
            )
          )
        }
        return {
          argv: ["git", "stash", "push", "-u", "(if there are changes)", "&&", "git", "switch", f["name"]!],
          refs: ["HEAD", `refs/heads/${f["name"]}`],
          guide: `Parks unsaved-to-git changes in a stash (kept if the switch fails), then switches to ${f["name"]}.`
        }
      }
      case "branch_delete": {
        yield* checkRefName(git, "name", f["name"]!)
        const tip = yield* branchTip(git, f["name"]!)
        if (tip === "") return yield* Effect.fail(notFound("name", `branch "${f["name"]}" does not exist locally.`))
        if (binding.branch === f["name"])
          return yield* Effect.fail(
            invalid("name", `${f["name"]} is the current branch; switch away before deleting it.`)
          )
        return {
          argv: ["git", "branch", "-D", "--", f["name"]!],
          refs: [`refs/heads/${f["name"]}`],
          guide: `Deletes branch ${f["name"]} (tip ${tip.slice(0, 12)}, kept in the receipt).`
        }
      }
      case "move": {
        const from = yield* repoPath("from", f["from"]!)
        const to = yield* repoPath("to", f["to"]!)
        const tracked = yield* git.exec(["ls-files", "--error-unmatch", "--", `:(literal,top)${from}`])
        if (tracked.exitCode !== 0)
          return yield* Effect.fail(
            notFound("from", `from "${f["from"]}" is not a tracked file; move tracked files only.`)
          )
        const workspace = yield* Workspace
        if ((yield* workspace.stat(to)) !== undefined)
          return yield* Effect.fail(invalid("to", `to "${f["to"]}" exists already; choose a free path.`))
        return { argv: ["git", "mv", "--", from, to], refs: [], guide: `Moves ${from} to ${to} (staged as a rename).` }
      }
      case "stash_restore":
      case "stash_discard": {
        const ref = yield* stashRef(git, f["stash_id"]!)
        return input.action === "stash_restore"
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
      }
      case "pr_create": {
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
      }
      case "pr_merge": {
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
      }
    }
  })

/** The GitHub repository and an authenticated gh, or CAPABILITY_MISSING (the host no longer offers gh). */
const requireGithub = (git: Git) =>
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

/** What an effect ended in. */
export interface Settlement {
  readonly state: ReceiptState
  readonly phases: Partial<Phases>
  readonly outcome: Record<string, unknown>
  readonly expect?: Record<string, unknown>
}

const failedWith = (
  phases: Partial<Phases>,
  error: ToolError | { code: string; message: string },
  extra: Record<string, unknown> = {}
): Settlement => ({
  state: "failed",
  phases,
  outcome: { code: error.code, message: error.message, ...extra }
})

/** git's complaint as a failure: VCS_FAILED (or `code`) with its stderr, cleaned by `clean`, cut at 500 characters. */
const gitFailure = (result: ExecResult, code = "VCS_FAILED", clean: (text: string) => string = (text) => text) => ({
  code,
  message: clean(result.stderr.trim()).slice(0, 500)
})

/**
 * A local git step settled by its exit: failed with git's complaint (and the phases of nothing applied) when it
 * exits non-zero, else succeeded with `phases` and `outcome`.
 */
const settleStep = (
  result: ExecResult,
  failedPhases: Partial<Phases>,
  succeeded: { readonly phases: Partial<Phases>; readonly outcome: Record<string, unknown> },
  extra: Record<string, unknown> = {}
): Settlement =>
  result.exitCode !== 0 ? failedWith(failedPhases, gitFailure(result), extra) : { state: "succeeded", ...succeeded }

/**
 * Runs the effect once. A git exit that proves nothing changed settles `failed`; a timeout, or a failure
 * whose effect cannot be known, leaves the receipt `unknown` for reconciliation.
 */
export const runEffect = (git: Git, receipt: Receipt): Effect.Effect<Settlement, ToolError, ToolContext> =>
  Effect.gen(function* () {
    const f = receipt.inputs as Record<string, string>
    const e = receipt.expect as Record<string, string>
    switch (receipt.action as BuiltAction) {
      case "commit": {
        yield* git.must(["add", "-A", "--", ".", ...NOT_AGENTIC])
        const result = yield* git.exec(["commit", "--no-verify", "-m", f["message"]!])
        if (result.exitCode !== 0) return failedWith({ local_applied: false }, gitFailure(result))
        return {
          state: "succeeded",
          phases: { local_applied: true, reloaded: false },
          outcome: { commit: yield* branchTip(git, e["branch"]!) }
        }
      }
      case "push": {
        const result = yield* git.exec([
          "push",
          ...git.pushOptions(f["remote"]!),
          "--",
          f["remote"]!,
          `refs/heads/${f["branch"]}:refs/heads/${f["branch"]}`
        ])
        if (result.exitCode !== 0) {
          const rejected = /\[rejected\]|non-fast-forward|fetch first/.test(result.stderr)
          return failedWith(
            { local_applied: true, published: false },
            gitFailure(result, rejected ? "NON_FAST_FORWARD" : "VCS_FAILED", redact),
            { commit: e["commit"] }
          )
        }
        return {
          state: "succeeded",
          phases: { local_applied: true, published: true },
          outcome: { commit: e["commit"], remote: f["remote"], branch: f["branch"] }
        }
      }
      case "pull": {
        const fetched = yield* git.exec(["fetch", "--no-tags", "--", f["remote"]!, `refs/heads/${f["branch"]}`])
        if (fetched.exitCode !== 0)
          return failedWith({ local_applied: false, reloaded: false }, gitFailure(fetched, "VCS_FAILED", redact))
        const target = yield* readLine(git, ["rev-parse", "-q", "--verify", "FETCH_HEAD^{commit}"])
        const head = yield* readLine(git, ["rev-parse", "-q", "--verify", "HEAD"])
        if (head !== "" && (yield* git.exec(["merge-base", "--is-ancestor", target, head])).exitCode === 0) {
          return {
            state: "succeeded",
            phases: { local_applied: false, reloaded: false },
            outcome: { noop: true, target },
            expect: { ...e, target }
          }
        }
        const merged = yield* git.exec(["merge", "--ff-only", "--no-edit", target])
        if (merged.exitCode !== 0)
          return failedWith({ local_applied: false, reloaded: false }, gitFailure(merged, "NON_FAST_FORWARD"), {
            target
          })
        return {
          state: "succeeded",
          phases: { local_applied: true, reloaded: false },
          outcome: { target },
          expect: { ...e, target }
        }
      }
      case "branch_create": {
        const result = yield* git.exec(["branch", "--", f["name"]!, e["commit"]!])
        return settleStep(
          result,
          { local_applied: false },
          { phases: { local_applied: true }, outcome: { name: f["name"], commit: e["commit"] } }
        )
      }
      case "branch_switch": {
        const changes = yield* loadChanges(git)
        let park: string | null = null
        if (changes.entries.length > 0) {
          const parked = yield* git.exec([
            "stash",
            "push",
            "-u",
            "-m",
            `agentic-workspace park ${receipt.requestId}`,
            "--",
            ".",
            ...NOT_AGENTIC
          ])
          if (parked.exitCode !== 0) return failedWith({ local_applied: false, reloaded: false }, gitFailure(parked))
          park = yield* readLine(git, ["rev-parse", "-q", "--verify", "refs/stash"])
        }
        const result = yield* git.exec(["switch", "--", f["name"]!])
        return settleStep(
          result,
          { local_applied: false, reloaded: false },
          { phases: { local_applied: true, reloaded: false }, outcome: { name: f["name"], park } },
          { park }
        )
      }
      case "branch_delete": {
        const result = yield* git.exec(["branch", "-D", "--", f["name"]!])
        return settleStep(
          result,
          { local_applied: false },
          { phases: { local_applied: true }, outcome: { name: f["name"], tip: e["tip"] } }
        )
      }
      case "move": {
        const result = yield* git.exec(["mv", "--", f["from"]!, f["to"]!])
        return settleStep(
          result,
          { local_applied: false },
          { phases: { local_applied: true, reloaded: false }, outcome: { from: f["from"], to: f["to"] } }
        )
      }
      case "stash_restore":
      case "stash_discard": {
        const ref = yield* stashRef(git, f["stash_id"]!)
        const restore = receipt.action === "stash_restore"
        const result = yield* git.exec(["stash", restore ? "pop" : "drop", ref])
        if (result.exitCode !== 0) {
          // A pop that conflicts has applied part of the stash and kept it: not a clean failure.
          return restore
            ? {
                state: "failed",
                phases: { local_applied: null, reloaded: false },
                outcome: { ...gitFailure(result, "MERGE_CONFLICT"), stash_kept: true }
              }
            : failedWith({ local_applied: false }, gitFailure(result))
        }
        return {
          state: "succeeded",
          phases: { local_applied: true, ...(restore ? { reloaded: false } : {}) },
          outcome: { stash_id: f["stash_id"] }
        }
      }
      case "pr_create":
      case "pr_merge": {
        const { gh, repo } = yield* requireGithub(git)
        const answer =
          receipt.action === "pr_create"
            ? yield* rest(gh, repo, "POST", `${githubPath(repo)}/pulls`, {
                title: f["title"],
                body: f["body"],
                head: f["head"],
                base: f["base"],
                draft: (receipt.inputs["draft"] as boolean | undefined) === true
              })
            : yield* rest(gh, repo, "PUT", `${githubPath(repo)}/pulls/${e["number"]}/merge`, {
                sha: e["head_sha"],
                merge_method: "merge"
              })
        const json = (answer.json ?? {}) as Record<string, unknown>
        if (answer.status === undefined || answer.status >= 500) {
          // No answer, or a server error: GitHub may or may not have acted. Unknown, for reconciliation.
          return yield* Effect.fail(
            toolError(
              "VCS_FAILED",
              `GitHub gave no definite answer (${answer.status === undefined ? (answer.transport ?? "no response") : `HTTP ${answer.status}`}); the outcome is observed by reconciliation, never by retrying.`,
              {}
            )
          )
        }
        if (receipt.action === "pr_create" && answer.status === 201) {
          return {
            state: "succeeded",
            phases: { published: true },
            outcome: {
              pull_request_number: json["number"],
              url: typeof json["html_url"] === "string" ? redactText(json["html_url"]) : null
            }
          }
        }
        if (receipt.action === "pr_merge" && answer.status === 200 && json["merged"] === true) {
          return {
            state: "succeeded",
            phases: { published: true },
            outcome: { pull_request_number: e["number"], merge_commit: json["sha"] ?? null }
          }
        }
        // A 4xx is GitHub's refusal: nothing was created or merged.
        return failedWith(
          { published: false },
          restError(
            receipt.action === "pr_create" ? "opening the pull request" : `merging pull request #${e["number"]}`,
            answer
          ),
          { status: answer.status }
        )
      }
    }
  })

/** `user:pass@` and tokens out of git's messages. */
export const redact = (text: string): string =>
  text
    .replace(/([a-z][a-z0-9+.-]*:\/\/)[^/@\s]*@/gi, "$1")
    .replace(/\b(gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})\b/g, "[redacted]")

/** What reconciliation observed: a settlement when the original effect is proven, else the facts seen. */
export interface Observation {
  readonly settled?: Settlement
  readonly observed: Record<string, unknown>
}

/** Observes the original effect of an `unknown` receipt; never runs it. */
export const observe = (git: Git, receipt: Receipt): Effect.Effect<Observation, ToolError, ReadContext> =>
  Effect.gen(function* () {
    const e = receipt.expect as Record<string, string | null>
    switch (receipt.action as BuiltAction) {
      case "commit": {
        const tip = e["branch"] === null ? "" : yield* branchTip(git, e["branch"]!)
        const log = tip === "" ? "" : yield* readLine(git, ["log", "-n50", "--format=%H%x1f%P%x1f%T%x1f%B%x1e", tip])
        const found = log
          .split("\x1e")
          .map((line) => line.replace(/^\n/, "").split("\x1f"))
          .find(
            ([, parents, tree, message]) =>
              tree === e["tree"] &&
              (parents ?? "") === (e["parent"] ?? "") &&
              (message ?? "").trim() === (e["message"] ?? "").trim()
          )
        if (found !== undefined)
          return {
            settled: {
              state: "succeeded",
              phases: { local_applied: true, reloaded: false },
              outcome: { commit: found[0], reconciled: true }
            },
            observed: { commit: found[0] }
          }
        return { observed: { branch_tip: tip === "" ? null : tip, commit_found: false } }
      }
      case "push": {
        const listed = yield* git.exec(["ls-remote", "--", e["remote"]!, `refs/heads/${e["branch"]}`])
        if (listed.exitCode !== 0) return { observed: { remote_readable: false } }
        const remoteSha = listed.stdout.split("\t")[0]!.trim() || null
        const local = e["commit"] === null ? "" : yield* readLine(git, ["cat-file", "-t", e["commit"]!])
        if (remoteSha === e["commit"]) {
          return {
            settled: {
              state: "succeeded",
              phases: { local_applied: true, published: true },
              outcome: { commit: e["commit"], reconciled: true }
            },
            observed: { remote_ref: remoteSha }
          }
        }
        return { observed: { remote_ref: remoteSha, local_commit_present: local === "commit", published: false } }
      }
      case "pull": {
        const head = yield* readLine(git, ["rev-parse", "-q", "--verify", "HEAD"])
        if (
          e["target"] !== undefined &&
          e["target"] !== null &&
          head !== "" &&
          (yield* git.exec(["merge-base", "--is-ancestor", e["target"]!, head])).exitCode === 0
        ) {
          return {
            settled: {
              state: "succeeded",
              phases: { local_applied: head !== e["before"], reloaded: false },
              outcome: { target: e["target"], reconciled: true }
            },
            observed: { head }
          }
        }
        return { observed: { head } }
      }
      case "branch_create": {
        const tip = yield* branchTip(git, e["name"]!)
        if (tip !== "" && tip === e["commit"])
          return {
            settled: {
              state: "succeeded",
              phases: { local_applied: true },
              outcome: { name: e["name"], commit: tip, reconciled: true }
            },
            observed: { tip }
          }
        return { observed: { tip: tip === "" ? null : tip } }
      }
      case "branch_switch": {
        const branch = yield* readLine(git, ["symbolic-ref", "--short", "-q", "HEAD"])
        if (branch === e["name"])
          return {
            settled: {
              state: "succeeded",
              phases: { local_applied: true, reloaded: false },
              outcome: { name: branch, reconciled: true }
            },
            observed: { branch }
          }
        return { observed: { branch: branch === "" ? null : branch } }
      }
      case "branch_delete": {
        const tip = yield* branchTip(git, e["name"]!)
        if (tip === "")
          return {
            settled: {
              state: "succeeded",
              phases: { local_applied: true },
              outcome: { name: e["name"], tip: e["tip"], reconciled: true }
            },
            observed: { exists: false }
          }
        return { observed: { exists: true, tip } }
      }
      case "move": {
        const to = yield* git.exec(["ls-files", "--error-unmatch", "--", `:(literal,top)${e["to"]}`])
        const from = yield* git.exec(["ls-files", "--error-unmatch", "--", `:(literal,top)${e["from"]}`])
        if (to.exitCode === 0 && from.exitCode !== 0)
          return {
            settled: {
              state: "succeeded",
              phases: { local_applied: true, reloaded: false },
              outcome: { from: e["from"], to: e["to"], reconciled: true }
            },
            observed: { moved: true }
          }
        return { observed: { to_tracked: to.exitCode === 0, from_tracked: from.exitCode === 0 } }
      }
      case "stash_restore":
      case "stash_discard": {
        const { entries } = yield* loadStashes(git)
        const present = entries.some((entry) => entry.stash_id === e["stash_id"])
        if (!present && receipt.action === "stash_discard")
          return {
            settled: {
              state: "succeeded",
              phases: { local_applied: true },
              outcome: { stash_id: e["stash_id"], reconciled: true }
            },
            observed: { stash_present: false }
          }
        // A stash that is gone after a restore may have been popped or dropped by someone else: not proven.
        return { observed: { stash_present: present } }
      }
      case "pr_create": {
        const found = yield* githubOf(git)
        if (found === undefined) return { observed: { github_readable: false } }
        const owner = e["owner"]!
        const answer = yield* rest(
          found.gh,
          found.repo,
          "GET",
          `repos/${owner}/${e["repo"]}/pulls?state=all&head=${encodeURIComponent(`${owner}:${e["head"]}`)}&base=${encodeURIComponent(e["base"]!)}&per_page=100`
        )
        if (answer.status !== 200 || !Array.isArray(answer.json))
          return { observed: { github_readable: false, status: answer.status ?? null } }
        const match = (answer.json as Array<{ number: number; title: string; html_url?: string }>).find(
          (pull) => pull.title === e["title"]
        )
        if (match !== undefined) {
          return {
            settled: {
              state: "succeeded",
              phases: { published: true },
              outcome: {
                pull_request_number: match.number,
                url: match.html_url === undefined ? null : redactText(match.html_url),
                reconciled: true
              }
            },
            observed: { pull_request_number: match.number }
          }
        }
        return { observed: { matching_pull_requests: 0, published: false } }
      }
      case "pr_merge": {
        const found = yield* githubOf(git)
        if (found === undefined) return { observed: { github_readable: false } }
        const number = Number(e["number"])
        const pull = yield* Effect.either(getPull(found.gh, found.repo, number))
        if (pull._tag === "Left") return { observed: { github_readable: false } }
        const { merged, merge_commit_sha: mergeCommit, head, state } = pull.right
        if (merged === true && head.sha === e["head_sha"]) {
          return {
            settled: {
              state: "succeeded",
              phases: { published: true },
              outcome: { pull_request_number: number, merge_commit: mergeCommit ?? null, reconciled: true }
            },
            observed: { merged: true, merge_commit: mergeCommit ?? null }
          }
        }
        // Not merged (or merged at another head): not proof that the original request can never land; it stays unknown.
        return { observed: { merged: merged === true, state, head_sha: head.sha } }
      }
    }
  })

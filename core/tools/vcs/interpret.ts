/**
 * Runs a gated plan's argv (after the gate said run) and reports what happened: the new commit, the
 * branch, the pushed ref, the issue or pull request. Each success is recorded in .agentic/vcs/history.json,
 * the `vcs` source of workspace_inspect changes.
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type { ToolResult } from "../../protocol/envelope.ts"
import type { ToolError } from "../../protocol/errors.ts"
import { OwnStore, StateReads } from "../../store/StateStore.ts"
import type { ToolContext } from "../Tool.ts"
import { ghFailure, loadBranch, loadHead, loadStatus, treeOf } from "./load.ts"
import { classifyFailure, type Gh, type Git, redactTokens, shownCommand } from "../../exec/git.ts"
import type { VcsPlan } from "./schema.ts"

/** The history store under .agentic/. */
export const HISTORY_FILE = "vcs/history.json"
/** How many history entries are kept. */
export const HISTORY_MAX = 200

/** One thing workspace_vcs changed. */
export interface HistoryEntry {
  readonly at: string
  readonly operation: string
  readonly summary: string
  readonly cwd: string
  readonly commit?: string
  readonly branch?: string
  readonly remote?: string
  readonly number?: number
  readonly url?: string
}

interface HistoryState {
  readonly version: 1
  readonly entries: ReadonlyArray<HistoryEntry>
}

/** The Schema of the vcs history file, decoded on every read. */
const HistoryStateSchema: Schema.Schema<HistoryState> = Schema.Struct({
  version: Schema.Literal(1),
  entries: Schema.Array(
    Schema.Struct({
      at: Schema.String,
      operation: Schema.String,
      summary: Schema.String,
      cwd: Schema.String,
      commit: Schema.optional(Schema.String),
      branch: Schema.optional(Schema.String),
      remote: Schema.optional(Schema.String),
      number: Schema.optional(Schema.Number),
      url: Schema.optional(Schema.String)
    })
  )
})

const record = (entry: Omit<HistoryEntry, "at">) =>
  Effect.gen(function* () {
    const store = yield* OwnStore
    const at = new Date(yield* Clock.currentTimeMillis).toISOString()
    yield* store.update(HISTORY_FILE, HistoryStateSchema, (current) =>
      Effect.succeed([
        undefined,
        { version: 1, entries: [{ at, ...entry }, ...(current?.entries ?? [])].slice(0, HISTORY_MAX) }
      ] as const)
    )
  })

/** The entries of the `vcs` changes source, newest first. */
export const vcsChanges = Effect.gen(function* () {
  const store = yield* StateReads
  const state = yield* store.readJson(HISTORY_FILE, HistoryStateSchema)
  return (state?.entries ?? []).slice(0, 50)
})

const short = (sha: string | null | undefined) => (sha === null || sha === undefined ? "(none)" : sha.slice(0, 7))

const result = (
  operation: string,
  summary: string,
  data: Record<string, unknown>,
  facts: ReadonlyArray<string>,
  entry: Omit<HistoryEntry, "at" | "operation" | "summary">
) =>
  Effect.as(record({ operation, summary, ...entry }), {
    summary,
    data,
    retention: { importance: "high", facts: [summary, ...facts] }
  } satisfies ToolResult)

/** Counts the files a commit changed against its first parent (all of them for a root commit). */
const filesOf = (git: Git, commit: string) =>
  Effect.map(
    git.must(["diff-tree", "-r", "--no-commit-id", "--name-only", "-z", "--root", commit]),
    (out) => out.split("\0").filter((path) => path !== "").length
  )

type PlanOf<T extends VcsPlan["_tag"]> = Extract<VcsPlan, { readonly _tag: T }>

/** init: the new repository and the branch git put it on. */
const interpretInit = (plan: PlanOf<"Init">, git: Git) =>
  Effect.gen(function* () {
    yield* git.mustWrite(plan.argv)
    const branch = yield* loadBranch(git)
    const summary = `Initialized a git repository in ${plan.cwd === "" ? "the workspace root" : plan.cwd} on branch ${branch ?? "?"}.`
    return yield* result("vcs.init", summary, { initialized: true, cwd: plan.cwd, branch }, [], {
      cwd: plan.cwd,
      ...(branch === null ? {} : { branch })
    })
  })

/** add: what the index now stages (not recorded in the history: staging changes no ref). */
const interpretAdd = (plan: PlanOf<"Add">, git: Git) =>
  Effect.gen(function* () {
    yield* git.mustWrite(plan.argv)
    const status = yield* loadStatus(git, plan.top)
    const summary = `Staged ${plan.paths
      .map((path) => (path === "" ? "." : path))
      .slice(0, 5)
      .join(
        ", "
      )}${plan.paths.length > 5 ? ` and ${plan.paths.length - 5} more` : ""}: ${status.staged.length} staged change${status.staged.length === 1 ? "" : "s"} in the index.`
    return {
      summary,
      data: { paths: plan.paths, staged: status.staged.slice(0, 200), stagedCount: status.staged.length },
      retention: { importance: "normal", facts: [summary], omit_when_summarizing: ["staged"] }
    } satisfies ToolResult
  })

/** commit: the new commit, its files, and whether its tree is the one approved. */
const interpretCommit = (plan: PlanOf<"Commit">, git: Git) =>
  Effect.gen(function* () {
    yield* git.mustWrite(plan.argv, { stdin: plan.message })
    const commit = (yield* loadHead(git))!
    const tree = yield* treeOf(git, commit)
    const files = yield* filesOf(git, commit)
    const branch = yield* loadBranch(git)
    const matches = tree === plan.tree
    const summary = `${plan.amend ? "Amended" : "Committed"} ${short(commit)} on ${branch ?? "detached HEAD"}: ${files} file${files === 1 ? "" : "s"}${matches ? "" : ` (the index changed after approval: the commit records tree ${short(tree)}, not the approved ${short(plan.tree)})`}`
    return yield* result(
      "vcs.commit",
      summary,
      {
        commit,
        branch,
        tree,
        approvedTree: plan.tree,
        treeMatchesApproval: matches,
        files,
        amended: plan.amend,
        parent: plan.head
      },
      [`commit ${commit}`],
      { cwd: plan.cwd, commit, ...(branch === null ? {} : { branch }) }
    )
  })

/** checkout: where HEAD is now (a branch, or detached). */
const interpretCheckout = (plan: PlanOf<"Checkout">, git: Git) =>
  Effect.gen(function* () {
    yield* git.mustWrite(plan.argv)
    const head = yield* loadHead(git)
    const branch = yield* loadBranch(git)
    const summary = `Checked out ${plan.ref}: ${branch === null ? `HEAD detached at ${short(head)}` : `on ${branch} (${short(head)})`}.`
    return yield* result(
      "vcs.checkout",
      summary,
      { ref: plan.ref, head, branch, detached: branch === null, previousHead: plan.head },
      [`HEAD ${head}`],
      {
        cwd: plan.cwd,
        ...(head === null ? {} : { commit: head }),
        ...(branch === null ? {} : { branch })
      }
    )
  })

/** branch create: the new branch (HEAD stays where it was). */
const interpretBranchCreate = (plan: PlanOf<"BranchCreate">, git: Git) =>
  Effect.gen(function* () {
    yield* git.mustWrite(plan.argv)
    const current = yield* loadBranch(git)
    const summary = `Created branch ${plan.name} at ${short(plan.start)} (not switched to it; ${current === null ? "HEAD is still detached" : `still on ${current}`}).`
    return yield* result(
      "vcs.branch",
      summary,
      { created: plan.name, commit: plan.start, current },
      [`branch ${plan.name} ${plan.start}`],
      {
        cwd: plan.cwd,
        branch: plan.name,
        commit: plan.start
      }
    )
  })

/** branch delete: the deleted branch and the commit it was at. */
const interpretBranchDelete = (plan: PlanOf<"BranchDelete">, git: Git) =>
  Effect.gen(function* () {
    yield* git.mustWrite(plan.argv)
    const summary = `Deleted branch ${plan.name} (was ${short(plan.tip)}).`
    return yield* result(
      "vcs.branch",
      summary,
      { deleted: plan.name, commit: plan.tip },
      [`deleted branch ${plan.name} at ${plan.tip}`],
      {
        cwd: plan.cwd,
        branch: plan.name,
        commit: plan.tip
      }
    )
  })

/** push: the pushed commit (or that the remote had it already), and the upstream when asked for. */
const interpretPush = (plan: PlanOf<"Push">, git: Git) =>
  Effect.gen(function* () {
    const pushed = yield* git.execWrite(plan.argv)
    if (pushed.exitCode !== 0) {
      return yield* Effect.fail(
        classifyFailure(shownCommand("git", plan.argv), { ...pushed, stderr: `${pushed.stderr}\n${pushed.stdout}` })
      )
    }
    if (plan.setUpstream) {
      yield* git.mustWrite(["config", `branch.${plan.branch}.remote`, plan.remote])
      yield* git.mustWrite(["config", `branch.${plan.branch}.merge`, `refs/heads/${plan.branch}`])
    }
    const upToDate = /^=\t/m.test(pushed.stdout)
    const summary = upToDate
      ? `${plan.remote}/${plan.branch} was already at ${short(plan.localCommit)}: nothing to push.`
      : `Pushed ${short(plan.localCommit)} to ${plan.remote}/${plan.branch}${plan.force ? " (force-with-lease)" : ""}${plan.setUpstream ? `; ${plan.branch} now tracks ${plan.remote}/${plan.branch}` : ""}.`
    return yield* result(
      "vcs.push",
      summary,
      {
        remote: plan.remote,
        branch: plan.branch,
        commit: plan.localCommit,
        previousRemoteCommit: plan.remoteCommit,
        forced: plan.force,
        upstreamSet: plan.setUpstream,
        upToDate
      },
      [`pushed ${plan.localCommit} to ${plan.remote}/${plan.branch}`],
      { cwd: plan.cwd, remote: plan.remote, branch: plan.branch, commit: plan.localCommit }
    )
  })

/** issue_create and pr_create: the URL gh printed and the number in it. */
const interpretGhCreate = (plan: PlanOf<"IssueCreate" | "PrCreate">, gh: Gh | undefined) =>
  Effect.gen(function* () {
    if (gh === undefined) return yield* Effect.die(new Error("a GitHub plan without gh"))
    const ran = yield* gh.execWrite(plan.argv, { stdin: plan.body })
    if (ran.exitCode !== 0) return yield* Effect.fail(ghFailure(plan.argv, ran))
    const url = redactTokens(
      ran.stdout
        .trim()
        .split("\n")
        .filter((line) => /^https?:\/\//.test(line))
        .at(-1) ?? ran.stdout.trim()
    )
    const match = /\/(issues|pull)\/(\d+)/.exec(url)
    const number = match === null ? null : Number(match[2])
    const issue = plan._tag === "IssueCreate"
    const summary = `Created ${issue ? "issue" : "pull request"} #${number ?? "?"}: ${url}`
    return yield* result(
      issue ? "vcs.issue_create" : "vcs.pr_create",
      summary,
      { number, url, title: plan.title },
      [`${issue ? "issue" : "pull request"} #${number} ${url}`],
      {
        cwd: plan.cwd,
        ...(number === null ? {} : { number }),
        url,
        ...(plan._tag === "PrCreate" ? { branch: plan.head } : {})
      }
    )
  })

/** Interprets one plan with the git (and gh) of the call. */
export const interpret = (plan: VcsPlan, git: Git, gh?: Gh): Effect.Effect<ToolResult, ToolError, ToolContext> => {
  switch (plan._tag) {
    case "Init":
      return interpretInit(plan, git)
    case "Add":
      return interpretAdd(plan, git)
    case "Commit":
      return interpretCommit(plan, git)
    case "Checkout":
      return interpretCheckout(plan, git)
    case "BranchCreate":
      return interpretBranchCreate(plan, git)
    case "BranchDelete":
      return interpretBranchDelete(plan, git)
    case "Push":
      return interpretPush(plan, git)
    case "IssueCreate":
    case "PrCreate":
      return interpretGhCreate(plan, gh)
  }
}

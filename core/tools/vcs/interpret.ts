/**
 * Runs a gated plan's argv (after the gate said run) and reports what happened: the new commit, the
 * branch, the pushed ref, the issue or pull request. Each success is recorded in .agentic/vcs/history.json,
 * the `vcs` source of workspace_inspect changes.
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type { ToolResult } from "../../protocol/envelope.ts"
import { toolError, type ToolError } from "../../protocol/errors.ts"
import { StateStore } from "../../store/StateStore.ts"
import type { ToolContext } from "../Tool.ts"
import { loadBranch, loadHead, loadStatus, treeOf } from "./load.ts"
import { classifyFailure, type Gh, type Git, gitMessage, redactTokens, shownCommand } from "../../exec/git.ts"
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
    const store = yield* StateStore
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
  const store = yield* StateStore
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

/** Interprets one plan with the git (and gh) of the call. */
export const interpret = (plan: VcsPlan, git: Git, gh?: Gh): Effect.Effect<ToolResult, ToolError, ToolContext> =>
  Effect.gen(function* () {
    const command = (name: "git" | "gh") => shownCommand(name, plan.argv)
    switch (plan._tag) {
      case "Init": {
        yield* git.must(plan.argv)
        const branch = yield* loadBranch(git)
        const summary = `Initialized a git repository in ${plan.cwd === "" ? "the workspace root" : plan.cwd} on branch ${branch ?? "?"}.`
        return yield* result("vcs.init", summary, { initialized: true, cwd: plan.cwd, branch }, [], {
          cwd: plan.cwd,
          ...(branch === null ? {} : { branch })
        })
      }
      case "Add": {
        yield* git.must(plan.argv)
        const { status } = yield* loadStatus(git, plan.top)
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
      }
      case "Commit": {
        yield* git.must(plan.argv, { stdin: plan.message })
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
      }
      case "Checkout": {
        yield* git.must(plan.argv)
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
      }
      case "BranchCreate": {
        yield* git.must(plan.argv)
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
      }
      case "BranchDelete": {
        yield* git.must(plan.argv)
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
      }
      case "Push": {
        const pushed = yield* git.exec(plan.argv)
        if (pushed.exitCode !== 0) {
          return yield* Effect.fail(
            classifyFailure(command("git"), { ...pushed, stderr: `${pushed.stderr}\n${pushed.stdout}` })
          )
        }
        if (plan.setUpstream) {
          yield* git.must(["config", `branch.${plan.branch}.remote`, plan.remote])
          yield* git.must(["config", `branch.${plan.branch}.merge`, `refs/heads/${plan.branch}`])
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
      }
      case "IssueCreate":
      case "PrCreate": {
        if (gh === undefined) return yield* Effect.die(new Error("a GitHub plan without gh"))
        const ran = yield* gh.exec(plan.argv, { stdin: plan.body })
        if (ran.exitCode !== 0) {
          return yield* Effect.fail(
            toolError(
              "VCS_FAILED",
              `${command("gh")} failed with exit code ${ran.exitCode}: ${gitMessage(ran.stderr, ran.stdout)}`,
              {
                command: command("gh"),
                exitCode: ran.exitCode,
                stderr: gitMessage(ran.stderr, ran.stdout)
              }
            )
          )
        }
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
      }
    }
  })

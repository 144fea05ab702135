/**
 * workspace_vcs: git and GitHub as typed actions. Reads (status, diff, log, show, branch listing, gh_auth,
 * issue_list, pr_list, pr_diff) are bounded and never gated; init, add, commit, checkout, branch create or
 * delete, push, issue_create and pr_create are planned against the repository's state, gated (kind "vcs")
 * and only then run. git and gh run as argv through Processes.exec, hardened (see harden.ts).
 */
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import type { ToolResult } from "../../protocol/envelope.ts"
import { toolError, type ToolError } from "../../protocol/errors.ts"
import { CurrentSettings } from "../../services/CurrentSettings.ts"
import { Workspace } from "../../services/Workspace.ts"
import { classifyFailure, findRepository, type Git, type Gh, gitMessage, LARGE_OUTPUT_BYTES } from "../../exec/git.ts"
import { openGh, openGit, redactTokens, shownCommand } from "../../exec/git.ts"
import { type ActionInput, defineTool, gatedAction, type PlanStep, type ReadContext, ungated } from "../Tool.ts"
import { interpret, vcsChanges } from "./interpret.ts"
import {
  agenticExclude,
  checkRefFormat,
  commitOf,
  loadBranch,
  loadHead,
  loadRemotes,
  loadStatus,
  remoteUrl,
  resolveRevision,
  treeOf,
  writeTree
} from "./load.ts"
import { BRANCH_FORMAT, LOG_FORMAT, parseBranches, parseGhAuth, parseLog } from "./parse.ts"
import {
  checkMessage,
  checkRefText,
  type Planned,
  planAdd,
  planBranchCreate,
  planBranchDelete,
  planCheckout,
  planCommit,
  planInit,
  planIssueCreate,
  planPrCreate,
  planPush,
  TOOL
} from "./plan.ts"
import { LOG_LIMIT_DEFAULT, VcsActions, VcsPlan } from "./schema.ts"
import { fitted, pagedText, statusResult } from "./view.ts"
import { DESCRIPTION } from "./description.ts"

type Input<K extends keyof typeof VcsActions> = ActionInput<typeof VcsActions, K>
type Handler<K extends keyof typeof VcsActions> = (input: Input<K>) => Effect.Effect<ToolResult, ToolError, ReadContext>
type Loader<K extends keyof typeof VcsActions> = (input: Input<K>) => Effect.Effect<Before, ToolError, ReadContext>

const fail = (error: ToolError | undefined) => (error === undefined ? Effect.void : Effect.fail(error))

const invalid = (field: string, message: string) => Effect.fail(toolError("INVALID_INPUT", message, { field }))

/** The plan as a staged envelope shows it: long texts (a message, a body) clipped; the hash binds them whole. */
const shownPlan = (plan: Planned["plan"]): Record<string, unknown> =>
  Object.fromEntries(
    Object.entries(plan).map(([key, value]) => [
      key,
      typeof value === "string" && value.length > 2000
        ? `${value.slice(0, 2000)}… (${value.length} characters)`
        : Array.isArray(value)
          ? value.map((item) =>
              typeof item === "string" && item.length > 2000
                ? `${item.slice(0, 2000)}… (${item.length} characters)`
                : item
            )
          : value
    ])
  )

/** What the interpreter works with (never hashed): the opened git and gh of the call. */
interface Work {
  readonly git: Git
  readonly gh?: Gh | undefined
}

/** The before-state of a gated call: the opened tools and what the pure planner needs (or a no-op result). */
type Call =
  | { readonly _tag: "Init"; readonly cwd: string; readonly branch: string | null }
  | {
      readonly _tag: "Add"
      readonly cwd: string
      readonly top: string
      readonly paths: ReadonlyArray<string>
      readonly excludes: ReadonlyArray<string>
      readonly statusSha256: string
    }
  | { readonly _tag: "Commit"; readonly state: Parameters<typeof planCommit>[1] }
  | { readonly _tag: "Checkout"; readonly state: Parameters<typeof planCheckout>[1] }
  | { readonly _tag: "BranchCreate"; readonly state: Parameters<typeof planBranchCreate>[1] }
  | { readonly _tag: "BranchDelete"; readonly state: Parameters<typeof planBranchDelete>[1] }
  | { readonly _tag: "Push"; readonly state: Parameters<typeof planPush>[1]; readonly options: ReadonlyArray<string> }
  | { readonly _tag: "IssueCreate"; readonly state: Parameters<typeof planIssueCreate>[1] }
  | { readonly _tag: "PrCreate"; readonly state: Parameters<typeof planPrCreate>[1] }
  | { readonly _tag: "NoOp"; readonly result: ToolResult }

interface Before extends Work {
  readonly call: Call
}

const before = (git: Git, call: Call, gh?: Gh): Before => ({ git, gh, call })

/** The refs a plan reads or moves, for the user's prompt. */
const refsOf = (plan: VcsPlan): ReadonlyArray<string> => {
  switch (plan._tag) {
    case "Init":
      return plan.branch === null ? [] : [`refs/heads/${plan.branch}`]
    case "Add":
      return ["index"]
    case "Commit":
      return [
        `${plan.branch === null ? "HEAD" : `refs/heads/${plan.branch}`} ${plan.head ?? "(no commit)"} -> new commit of tree ${plan.tree}`
      ]
    case "Checkout":
      return [`HEAD ${plan.head ?? "(no commit)"} -> ${plan.ref} ${plan.target}`]
    case "BranchCreate":
      return [`refs/heads/${plan.name} -> ${plan.start}`]
    case "BranchDelete":
      return [`refs/heads/${plan.name} ${plan.tip} -> (deleted)`]
    case "Push":
      return [`${plan.remote} refs/heads/${plan.branch} ${plan.remoteCommit ?? "(new)"} -> ${plan.localCommit}`]
    case "IssueCreate":
      return []
    case "PrCreate":
      return [
        `${plan.head}${plan.headCommit === null ? "" : ` ${plan.headCommit}`}${plan.base === null ? "" : ` -> ${plan.base}`}`
      ]
  }
}

/** The pure half of every gated action: the before-state -> the planned call (or the no-op). */
const planOf = (input: Record<string, unknown>, loaded: Before): Either.Either<PlanStep<VcsPlan, Work>, ToolError> => {
  const call = loaded.call
  if (call._tag === "NoOp") return Either.right({ _tag: "NoOp", result: call.result })
  const planned: Planned =
    call._tag === "Init"
      ? planInit(input, call.cwd, call.branch)
      : call._tag === "Add"
        ? planAdd(input, call.cwd, call.top, call.paths, call.excludes, call.statusSha256)
        : call._tag === "Commit"
          ? planCommit(input, call.state)
          : call._tag === "Checkout"
            ? planCheckout(input, call.state)
            : call._tag === "BranchCreate"
              ? planBranchCreate(input, call.state)
              : call._tag === "BranchDelete"
                ? planBranchDelete(input, call.state)
                : call._tag === "Push"
                  ? planPush(input, call.state, call.options)
                  : call._tag === "IssueCreate"
                    ? planIssueCreate(input, call.state)
                    : planPrCreate(input, call.state)
  const github = planned.plan._tag === "IssueCreate" || planned.plan._tag === "PrCreate"
  const argv = [...(github ? ["gh"] : loaded.git.prefix), ...planned.plan.argv]
  return Either.right({
    _tag: "Planned",
    plan: planned.plan,
    work: { git: loaded.git, gh: loaded.gh },
    title: planned.title,
    prompt: { _tag: "vcs", argv, cwd: planned.plan.cwd, refs: refsOf(planned.plan) },
    ...(planned.destructive === undefined ? {} : { destructive: planned.destructive }),
    resume: planned.resume,
    preview: {
      data: {
        argv: [...(github ? ["gh"] : loaded.git.prefix), ...(shownPlan(planned.plan)["argv"] as ReadonlyArray<string>)],
        cwd: planned.plan.cwd,
        plan: shownPlan(planned.plan)
      }
    }
  })
}

/** A gated workspace_vcs action: its own load, the shared pure planner, interpreter and view. */
const vcsAction = <I extends Record<string, unknown>>(
  load: (input: I) => Effect.Effect<Before, ToolError, ReadContext>
) =>
  gatedAction({
    gate: "vcs",
    planSchema: VcsPlan,
    load,
    plan: (input: I, loaded: Before) => planOf(input, loaded),
    interpret: (plan: VcsPlan, work: Work) => interpret(plan, work.git, work.gh),
    view: (outcome: ToolResult) => Effect.succeed(outcome)
  })

/** Workspace-relative paths -> repository-relative ones; PROTECTED_PATH for .git/, .agentic/ and protected globs. */
const repoPaths = (paths: ReadonlyArray<string>, top: string, refuseProtected: boolean) =>
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
const pathspecs = (paths: ReadonlyArray<string>) =>
  paths.map((path) => (path === "" ? ":(top)" : `:(literal,top)${path}`))

/** The pathspecs add appends: .agentic/ always, and the protected globs when the repository is the workspace. */
const addExcludes = (top: string) =>
  Effect.map(CurrentSettings, (settings) => [
    ...agenticExclude(top),
    ...(top === "" ? settings.protectedPatterns.map((pattern) => `:(exclude,glob,top)${pattern}`) : [])
  ])

const status: Handler<"status"> = (input) =>
  Effect.gen(function* () {
    const git = yield* openGit(input.cwd)
    const repo = yield* findRepository(git)
    const { status } = yield* loadStatus(git, repo.top)
    return yield* statusResult(status, repo.top)
  })

const diffArgs = (input: Input<"diff">) => {
  const { offset: _offset, snapshot: _snapshot, ...args } = input
  return args
}

const diff: Handler<"diff"> = (input) =>
  Effect.gen(function* () {
    const git = yield* openGit(input.cwd)
    const repo = yield* findRepository(git)
    if (input.base !== undefined && input.ref === undefined) {
      return yield* invalid(
        "base",
        'field "base" needs "ref" too (diff base..ref); to compare the working tree with one commit, pass it as ref alone.'
      )
    }
    if (input.base !== undefined && input.staged === true) {
      return yield* invalid(
        "staged",
        "staged: true compares the index, and base with ref compares two commits; use one or the other."
      )
    }
    const revisions: Array<string> = []
    if (input.base !== undefined) revisions.push(yield* resolveRevision(git, "base", input.base))
    if (input.ref !== undefined) revisions.push(yield* resolveRevision(git, "ref", input.ref))
    const paths = yield* repoPaths(input.paths ?? [], repo.top, false)
    const head = input.staged === true && revisions.length === 0 ? yield* loadHead(git) : "x"
    const ran = yield* git.exec(
      [
        "diff",
        "--no-color",
        "--no-ext-diff",
        "--no-textconv",
        "--ignore-submodules=dirty",
        ...(input.staged === true ? ["--cached"] : []),
        // Before the first commit the index is compared with the empty tree.
        ...(head === null ? ["4b825dc642cb6eb9a060e54bf8d69288fbee4904"] : []),
        ...revisions,
        "--",
        ...pathspecs(paths),
        ...agenticExclude(repo.top)
      ],
      { maxOutputBytes: LARGE_OUTPUT_BYTES }
    )
    if (ran.exitCode !== 0) return yield* Effect.fail(classifyFailure("git diff", ran))
    const what =
      input.base !== undefined
        ? `Diff ${input.base}..${input.ref}`
        : input.staged === true
          ? `Staged diff (index vs ${input.ref ?? "HEAD"})`
          : `Diff of the working tree vs ${input.ref ?? "the index"}`
    return yield* pagedText({
      operation: "vcs.diff",
      action: "diff",
      args: diffArgs(input),
      text: ran.stdout,
      complete: !ran.truncated,
      offset: input.offset,
      limit: input.limit,
      snapshot: input.snapshot,
      what
    })
  })

const log: Handler<"log"> = (input) =>
  Effect.gen(function* () {
    const git = yield* openGit(input.cwd)
    const repo = yield* findRepository(git)
    const limit = input.limit ?? LOG_LIMIT_DEFAULT
    // An explicit ref is checked and resolved first (its own errors); HEAD is given to git log as it is, and
    // only when that fails is HEAD looked at (an unborn branch has no commits; anything else is git's error).
    const start = input.ref === undefined ? "HEAD" : yield* resolveRevision(git, "ref", input.ref)
    const paths = yield* repoPaths(input.paths ?? [], repo.top, false)
    const args = ["log", "--no-color", "-z", LOG_FORMAT, `--max-count=${limit + 1}`, start, "--", ...pathspecs(paths)]
    const ran = yield* git.exec(args)
    const commits =
      ran.exitCode === 0
        ? parseLog(ran.stdout)
        : input.ref === undefined && (yield* loadHead(git)) === null
          ? []
          : yield* Effect.fail(classifyFailure(shownCommand("git", args), ran))
    const more = commits.length > limit
    const all = commits.slice(0, limit)
    return yield* fitted({
      operation: "vcs.log",
      max: all.length,
      kind: "vcs.log",
      stem: "log",
      description: "The full log page, as JSON.",
      full: () => JSON.stringify({ ref: input.ref ?? "HEAD", commits: all }),
      build: (n, artifact) => ({
        summary: `${all.length === 0 ? "No commits" : `${all.length} commit${all.length === 1 ? "" : "s"} from ${input.ref ?? "HEAD"} (${all[0]!.hash.slice(0, 7)} ${JSON.stringify(all[0]!.subject)})`}${more ? `; more exist: raise limit (at most 1000) or pass ref to start further back` : ""}.${artifact === undefined ? "" : ` Showing ${n} to fit maxToolResultChars; all ${all.length} are in ${artifact.path}.`}`,
        data: { ref: input.ref ?? "HEAD", commits: all.slice(0, n), returned: n, total: all.length, more },
        ...(artifact === undefined ? {} : { artifacts: [artifact] }),
        retention: {
          importance: "normal",
          facts: all.length === 0 ? [] : [`log ${input.ref ?? "HEAD"} at ${all[0]!.hash}`],
          omit_when_summarizing: ["commits"]
        }
      })
    })
  })

const SHOW_FORMAT = "--format=%H%x00%P%x00%an%x00%ae%x00%aI%x00%s%x00%b%x00"

const show: Handler<"show"> = (input) =>
  Effect.gen(function* () {
    const git = yield* openGit(input.cwd)
    yield* findRepository(git)
    const commit = yield* resolveRevision(git, "ref", input.ref ?? "HEAD")
    const ran = yield* git.exec(["show", "--no-color", "--no-ext-diff", "--no-textconv", SHOW_FORMAT, commit, "--"], {
      maxOutputBytes: LARGE_OUTPUT_BYTES
    })
    if (ran.exitCode !== 0) return yield* Effect.fail(classifyFailure("git show", ran))
    const parts = ran.stdout.split("\0")
    const [hash, parents, author, authorEmail, date, subject, body] = parts
    const patch = parts.slice(7).join("\0").replace(/^\n+/, "")
    const record = {
      hash: hash!,
      parents: parents!.split(" ").filter((parent) => parent !== ""),
      author: author!,
      authorEmail: authorEmail!,
      date: date!,
      subject: subject!,
      body: body!.trim()
    }
    const { offset: _offset, snapshot: _snapshot, ...args } = input
    return yield* pagedText({
      operation: "vcs.show",
      action: "show",
      args,
      text: patch,
      complete: !ran.truncated,
      offset: input.offset,
      limit: input.limit,
      snapshot: input.snapshot,
      what: `Commit ${record.hash.slice(0, 7)} ${JSON.stringify(record.subject)} by ${record.author}`,
      extra: { commit: record },
      facts: [`commit ${record.hash}: ${record.subject}`]
    })
  })

const listBranches = (git: Git) =>
  Effect.gen(function* () {
    const branches = parseBranches(yield* git.must(["for-each-ref", BRANCH_FORMAT, "refs/heads", "refs/remotes"]))
    const current = branches.local.find((branch) => branch.current)?.name ?? (yield* loadBranch(git))
    return yield* fitted({
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
  })

const branch: Loader<"branch"> = (input) =>
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

const ghFailure = (args: ReadonlyArray<string>, ran: { exitCode: number | null; stderr: string; stdout: string }) =>
  toolError(
    "VCS_FAILED",
    `${shownCommand("gh", args)} failed with exit code ${ran.exitCode}: ${gitMessage(ran.stderr, ran.stdout)}`,
    {
      command: shownCommand("gh", args),
      exitCode: ran.exitCode,
      stderr: gitMessage(ran.stderr, ran.stdout)
    }
  )

const ghAuth: Handler<"gh_auth"> = (input) =>
  Effect.gen(function* () {
    const git = yield* openGit(input.cwd)
    const gh = yield* openGh(git)
    const ran = yield* gh.exec(["auth", "status"])
    const auth = parseGhAuth(`${ran.stderr}\n${ran.stdout}`)
    const summary = auth.authenticated
      ? `gh is authenticated: ${auth.hosts.map((host) => `${host.user} on ${host.host}`).join(", ")}.`
      : `gh is not authenticated${ran.exitCode === 0 ? "" : ` (gh auth status exited ${ran.exitCode})`}: the user must run gh auth login (or provide GH_TOKEN).`
    return {
      summary,
      data: {
        authenticated: auth.authenticated,
        hosts: auth.hosts,
        ...(auth.authenticated ? {} : { message: redactTokens(gitMessage(ran.stderr, ran.stdout)) })
      },
      retention: { importance: "normal", facts: [summary] }
    } satisfies ToolResult
  })

const ghList = (kind: "issue" | "pr", input: Input<"issue_list"> | Input<"pr_list">) =>
  Effect.gen(function* () {
    const git = yield* openGit(input.cwd)
    yield* findRepository(git)
    const gh = yield* openGh(git)
    const limit = input.limit ?? 30
    const fields =
      kind === "issue"
        ? "number,title,state,url,author,labels,createdAt,updatedAt"
        : "number,title,state,url,author,headRefName,baseRefName,isDraft,createdAt"
    const args = [kind, "list", `--json=${fields}`, `--limit=${limit}`, `--state=${input.state ?? "open"}`]
    const ran = yield* gh.exec(args)
    if (ran.exitCode !== 0) return yield* Effect.fail(ghFailure(args, ran))
    const parsed = yield* Effect.try({
      try: () => JSON.parse(ran.stdout) as ReadonlyArray<Record<string, any>>,
      catch: () => toolError("VCS_FAILED", `${shownCommand("gh", args)} did not answer JSON: ${gitMessage(ran.stdout)}`)
    })
    const items: ReadonlyArray<Record<string, any>> = parsed.map((item) => ({
      ...item,
      author:
        typeof item["author"] === "object" && item["author"] !== null
          ? (item["author"].login ?? null)
          : (item["author"] ?? null),
      ...(Array.isArray(item["labels"])
        ? { labels: item["labels"].map((label: { name?: string }) => label.name ?? String(label)) }
        : {})
    }))
    const key = kind === "issue" ? "issues" : "pullRequests"
    const noun = kind === "issue" ? "issue" : "pull request"
    return yield* fitted({
      operation: `vcs.${kind}_list`,
      max: items.length,
      kind: `vcs.${kind}_list`,
      stem: `${kind}s`,
      description: `All listed ${noun}s, as JSON.`,
      full: () => JSON.stringify({ [key]: items }),
      build: (n, artifact) => ({
        summary: `${items.length} ${input.state ?? "open"} ${noun}${items.length === 1 ? "" : "s"}${
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
  })

const prDiff: Handler<"pr_diff"> = (input) =>
  Effect.gen(function* () {
    const git = yield* openGit(input.cwd)
    yield* findRepository(git)
    const gh = yield* openGh(git)
    const args = ["pr", "diff", String(input.pull_request_number), "--color=never"]
    const ran = yield* gh.exec(args, { maxOutputBytes: LARGE_OUTPUT_BYTES })
    if (ran.exitCode !== 0) return yield* Effect.fail(ghFailure(args, ran))
    const { offset: _offset, snapshot: _snapshot, ...rest } = input
    return yield* pagedText({
      operation: "vcs.pr_diff",
      action: "pr_diff",
      args: rest,
      text: ran.stdout,
      complete: !ran.truncated,
      offset: input.offset,
      limit: input.limit,
      snapshot: input.snapshot,
      what: `Diff of pull request #${input.pull_request_number}`,
      extra: { pullRequestNumber: input.pull_request_number },
      facts: [`pull request #${input.pull_request_number}`]
    })
  })

const init: Loader<"init"> = (input) =>
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

const add: Loader<"add"> = (input) =>
  Effect.gen(function* () {
    const git = yield* openGit(input.cwd)
    const repo = yield* findRepository(git)
    const paths = yield* repoPaths(input.paths, repo.top, true)
    const { sha256 } = yield* loadStatus(git, repo.top)
    return before(git, {
      _tag: "Add",
      cwd: git.cwd,
      top: repo.top,
      paths,
      excludes: yield* addExcludes(repo.top),
      statusSha256: sha256
    })
  })

const commit: Loader<"commit"> = (input) =>
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
    const { status } = yield* loadStatus(git, repo.top)
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

const checkout: Loader<"checkout"> = (input) =>
  Effect.gen(function* () {
    const git = yield* openGit(input.cwd)
    const repo = yield* findRepository(git)
    const target = yield* resolveRevision(git, "ref", input.ref)
    const { sha256 } = yield* loadStatus(git, repo.top)
    const head = yield* loadHead(git)
    return before(git, {
      _tag: "Checkout",
      state: { cwd: git.cwd, top: repo.top, ref: input.ref, target, head, statusSha256: sha256 }
    })
  })

const push: Loader<"push"> = (input) =>
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

const issueCreate: Loader<"issue_create"> = (input) =>
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

const prCreate: Loader<"pr_create"> = (input) =>
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

/** The workspace_vcs tool. */
export const vcsTool = defineTool({
  name: TOOL,
  short: "vcs",
  description: DESCRIPTION,
  actions: VcsActions,
  enabled: (settings) => settings.enableProcessExecution && settings.enableVcsTools,
  requires: ["process"],
  hints: {
    readOnlyHint: false,
    destructiveHint: "allowDestructiveEdits",
    openWorldHint: true,
    why: "checkout, branch delete and forced push need the ceiling; push and the GitHub actions reach the network"
  },
  changes: [{ key: "vcs", list: vcsChanges }],
  storage: [
    {
      name: "vcs",
      path: ".agentic/vcs/history.json",
      probe: "vcs/history.json",
      description: "commits, branches and pushes made by workspace_vcs",
      rank: 95
    }
  ],
  probe: { args: { action: "status" }, ok: "any" },
  handlers: {
    status: ungated(status),
    diff: ungated(diff),
    log: ungated(log),
    show: ungated(show),
    branch: vcsAction(branch),
    gh_auth: ungated(ghAuth),
    issue_list: ungated((input: Input<"issue_list">) => ghList("issue", input)),
    pr_list: ungated((input: Input<"pr_list">) => ghList("pr", input)),
    pr_diff: ungated(prDiff),
    init: vcsAction(init),
    add: vcsAction(add),
    commit: vcsAction(commit),
    checkout: vcsAction(checkout),
    push: vcsAction(push),
    issue_create: vcsAction(issueCreate),
    pr_create: vcsAction(prCreate)
  }
})

/**
 * The reads of workspace_vcs, never gated: status, diff, log, show, gh_auth, issue_list, pr_list and
 * pr_diff. Each opens git (and gh) for its call, reads through it and returns a bounded result (view.ts).
 */
import * as Effect from "effect/Effect"
import { classifyFailure, findRepository, gitMessage, LARGE_OUTPUT_BYTES } from "../../exec/git.ts"
import { openGh, openGit, redactTokens, shownCommand } from "../../exec/git.ts"
import type { GhReadArgs, GitReadArgs } from "../../services/VcsReads.ts"
import type { ToolResult } from "../../protocol/envelope.ts"
import { toolError, type ToolError } from "../../protocol/errors.ts"
import type { ReadContext } from "../Tool.ts"
import {
  agenticExclude,
  ghFailure,
  invalid,
  loadHead,
  loadStatus,
  pathspecs,
  repoPaths,
  resolveRevision
} from "./load.ts"
import { LOG_FORMAT, parseGhAuth, parseLog } from "./parse.ts"
import { LOG_LIMIT_DEFAULT, type VcsActions, type VcsInput } from "./schema.ts"
import { ghListResult, logResult, pagedText, statusResult } from "./view.ts"

type Read<K extends keyof typeof VcsActions> = (input: VcsInput<K>) => Effect.Effect<ToolResult, ToolError, ReadContext>

/** status: the branch, upstream and the staged, unstaged, untracked and conflicted paths. */
export const status: Read<"status"> = (input) =>
  Effect.gen(function* () {
    const git = yield* openGit(input.cwd)
    const repo = yield* findRepository(git)
    const status = yield* loadStatus(git, repo.top)
    return yield* statusResult(status, repo.top)
  })

/** The diff call's arguments without offset and snapshot (what the next-page call repeats). */
const diffArgs = (input: VcsInput<"diff">) => {
  const { offset: _offset, snapshot: _snapshot, ...args } = input
  return args
}

/** diff: the working tree, the index (staged) or two commits (base..ref), paged by line. */
export const diff: Read<"diff"> = (input) =>
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

/** log: the commits from ref (HEAD), at most limit, optionally of some paths. */
export const log: Read<"log"> = (input) =>
  Effect.gen(function* () {
    const git = yield* openGit(input.cwd)
    const repo = yield* findRepository(git)
    const limit = input.limit ?? LOG_LIMIT_DEFAULT
    // An explicit ref is checked and resolved first (its own errors); HEAD is given to git log as it is, and
    // only when that fails is HEAD looked at (an unborn branch has no commits; anything else is git's error).
    const start = input.ref === undefined ? "HEAD" : yield* resolveRevision(git, "ref", input.ref)
    const paths = yield* repoPaths(input.paths ?? [], repo.top, false)
    const args: GitReadArgs = [
      "log",
      "--no-color",
      "-z",
      LOG_FORMAT,
      `--max-count=${limit + 1}`,
      start,
      "--",
      ...pathspecs(paths)
    ]
    const ran = yield* git.exec(args)
    const commits =
      ran.exitCode === 0
        ? parseLog(ran.stdout)
        : input.ref === undefined && (yield* loadHead(git)) === null
          ? []
          : yield* Effect.fail(classifyFailure(shownCommand("git", args), ran))
    const more = commits.length > limit
    const all = commits.slice(0, limit)
    return yield* logResult(input.ref, all, more)
  })

const SHOW_FORMAT = "--format=%H%x00%P%x00%an%x00%ae%x00%aI%x00%s%x00%b%x00"

/** show: one commit (its record, and its patch paged by line). */
export const show: Read<"show"> = (input) =>
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

/** gh_auth: whether gh is authenticated, and as whom. */
export const ghAuth: Read<"gh_auth"> = (input) =>
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

/** issue_list and pr_list: gh's JSON listing, author and labels flattened to names. */
export const ghList = (kind: "issue" | "pr", input: VcsInput<"issue_list"> | VcsInput<"pr_list">) =>
  Effect.gen(function* () {
    const git = yield* openGit(input.cwd)
    yield* findRepository(git)
    const gh = yield* openGh(git)
    const limit = input.limit ?? 30
    const fields =
      kind === "issue"
        ? "number,title,state,url,author,labels,createdAt,updatedAt"
        : "number,title,state,url,author,headRefName,baseRefName,isDraft,createdAt"
    const args: GhReadArgs = [kind, "list", `--json=${fields}`, `--limit=${limit}`, `--state=${input.state ?? "open"}`]
    const ran = yield* gh.exec(args)
    if (ran.exitCode !== 0) return yield* Effect.fail(ghFailure(args, ran))
    const parsed = yield* Effect.try({
      try: () => JSON.parse(ran.stdout) as ReadonlyArray<Record<string, unknown>>,
      catch: () => toolError("VCS_FAILED", `${shownCommand("gh", args)} did not answer JSON: ${gitMessage(ran.stdout)}`)
    })
    const items: ReadonlyArray<Record<string, unknown>> = parsed.map((item) => {
      const author = item["author"]
      const labels = item["labels"]
      return {
        ...item,
        author:
          typeof author === "object" && author !== null
            ? ((author as { readonly login?: unknown }).login ?? null)
            : (author ?? null),
        ...(Array.isArray(labels)
          ? { labels: labels.map((label: { name?: string }) => label.name ?? String(label)) }
          : {})
      }
    })
    return yield* ghListResult(kind, input.state ?? "open", items)
  })

/** pr_diff: a pull request's diff, paged by line. */
export const prDiff: Read<"pr_diff"> = (input) =>
  Effect.gen(function* () {
    const git = yield* openGit(input.cwd)
    yield* findRepository(git)
    const gh = yield* openGh(git)
    const args: GhReadArgs = ["pr", "diff", String(input.pull_request_number), "--color=never"]
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
